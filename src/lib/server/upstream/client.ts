/**
 * The upstream client: every request to the service's `/v1` goes through here, signed as contract 5.1
 * says (node:crypto HMAC over `t.METHOD.pathAndQuery.rawBody`), with one Idempotency-Key per logical
 * operation (persisted before the first attempt when the operation is the server's own), retried on
 * network errors, 429 and 5xx with exponential backoff and full jitter, every failure a ContractError.
 * Each request carries the id of the inbox's request it serves as `X-Request-Id`, and ends in one line of
 * the log (docs/operations.md "Logs").
 */
import { ContractError } from '../../errors';
import { signRequest } from '../../crypto/hmac';
import { v1ErrorFromResponse, type V1Request } from '../../wire/v1';
import type { Queryable } from '../db/database';
import { completeOperation, loadOrCreateOperation, type StoredOperation } from '../db/operations';
import { nodeHmacSha256 } from '../hmac';
import type { Logger } from '../log';
import { statusClassOf, upstreamRequests, upstreamSeconds, upstreamUp } from '../metrics';
import { currentRequest } from '../request-context';
import { nodeTransport, type Transport } from './transport';

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	attempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
	attemptTimeoutMs: number;
}

/** The server's own operations (rewrap, invitations): patient. */
export const BACKGROUND_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 300, maxDelayMs: 8_000, attemptTimeoutMs: 10_000 };
/**
 * A browser is waiting (the proxy): a service that does not answer is given up within 8 s in all
 * (3 × 2.5 s plus backoff), so the page moves a reply to its outbox in under 10 s.
 */
export const INTERACTIVE_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 150, maxDelayMs: 1_000, attemptTimeoutMs: 2_500 };

export interface RawRequest {
	method: 'GET' | 'POST';
	/** `/v1/...` with the query, exactly as sent and signed. */
	pathAndQuery: string;
	/** The exact body bytes; none for GET. */
	body?: string | Uint8Array;
	/** Required for anything but GET (contract 5.1). */
	idempotencyKey?: string;
}

export interface RawResponse {
	status: number;
	headers: Headers;
	body: Uint8Array;
}

export interface UpstreamOptions {
	/** The service's base URL without `/v1` (a stage prefix is sent but not signed: contract 5.1). */
	baseUrl: string;
	apiKey: string;
	/** The current webhook secret, which signs requests (a function when it can rotate while running). */
	signingSecret: string | (() => string);
	/** Where server-side operations keep their Idempotency-Key and request. */
	db: Queryable;
	transport?: Transport;
	/** Where each request's outcome is logged, and once when the service stops answering and once when it answers again (docs/operations.md "Logs"). */
	log?: Logger;
	/** Called when the service stops answering or answers again: the live streams tell the pages (docs/inbox-api.md §7). */
	onReachability?: (reachable: boolean) => void;
	now?: () => number;
	random?: () => number;
	sleep?: (ms: number) => Promise<void>;
}

export interface UpstreamResult<T> {
	status: number;
	value: T;
	/** The service answered a repeated request from its idempotency store. */
	replayed: boolean;
}

const retryable = (status: number) => status === 429 || status >= 500;

/** A failure that says the service or the network is unwell (worth retrying later), not that the request is wrong. */
export const isTransientFailure = (error: unknown) =>
	!(error instanceof ContractError) ||
	error.status === undefined ||
	error.status >= 500 ||
	error.status === 429 ||
	error.code === 'UPSTREAM_UNAVAILABLE';

/** The service stores every answer below 500 but 429 under the key (contract-gaps §3): the operation is settled. */
export const operationSettled = (status: number) => status < 500 && status !== 429;

function describeNetworkError(error: unknown): string {
	const { code, message } = (error ?? {}) as { code?: string; message?: string };
	return code === 'ETIMEDOUT' ? 'no answer in time' : (code ?? message ?? String(error));
}

export class UpstreamClient {
	private readonly transport: Transport;
	private readonly now: () => number;
	private readonly random: () => number;
	private readonly sleep: (ms: number) => Promise<void>;

	constructor(private readonly options: UpstreamOptions) {
		this.transport = options.transport ?? nodeTransport;
		this.now = options.now ?? Date.now;
		this.random = options.random ?? Math.random;
		this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
	}

	/** The headers of one attempt, signed afresh (the timestamp must be within ±300 s). */
	signedHeaders(request: RawRequest): Record<string, string> {
		const body = request.body ?? '';
		const t = Math.floor(this.now() / 1000);
		const { header } = signRequest(
			{
				secret: typeof this.options.signingSecret === 'string' ? this.options.signingSecret : this.options.signingSecret(),
				t,
				method: request.method,
				pathAndQuery: request.pathAndQuery,
				body
			},
			nodeHmacSha256
		);
		const headers: Record<string, string> = {
			authorization: `Bearer ${this.options.apiKey}`,
			'x-service-signature': header,
			accept: 'application/json'
		};
		if (request.body !== undefined) headers['content-type'] = 'application/json';
		if (request.method !== 'GET') {
			if (!request.idempotencyKey)
				throw new ContractError('IDEMPOTENCY_KEY_REQUIRED', `${request.method} ${request.pathAndQuery} needs an Idempotency-Key`);
			headers['idempotency-key'] = request.idempotencyKey;
		}
		return headers;
	}

	private backoff(attempt: number, retryAfterSeconds: number | null, policy: RetryPolicy): number {
		const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
		const jittered = Math.round(this.random() * ceiling);
		return retryAfterSeconds === null ? jittered : Math.max(jittered, retryAfterSeconds * 1000);
	}

	/**
	 * Sends one request with retries. Returns the last answer the service gave (2xx, 4xx, or a 429/5xx
	 * that outlasted the retries); throws `UPSTREAM_UNAVAILABLE` (503) when it never answered.
	 */
	async send(request: RawRequest, policy: RetryPolicy = BACKGROUND_RETRY): Promise<RawResponse> {
		const url = `${this.options.baseUrl}${request.pathAndQuery}`;
		const requestId = currentRequest()?.requestId;
		const startedAt = performance.now();
		// the path names ids only; the query is left out with everything else a request carries
		const call = { method: request.method, path: request.pathAndQuery.split('?')[0] };
		for (let attempt = 1; ; attempt++) {
			let response: RawResponse;
			const started = performance.now();
			try {
				response = await this.transport({
					method: request.method,
					url,
					headers: { ...this.signedHeaders(request), ...(requestId ? { 'x-request-id': requestId } : {}) },
					body: request.body,
					timeoutMs: policy.attemptTimeoutMs
				});
			} catch (error) {
				if (error instanceof ContractError) throw error;
				this.observed(null, started);
				if (attempt >= policy.attempts) {
					const reason = describeNetworkError(error);
					// every failed call at info; the outage itself is one warning (answered)
					this.options.log?.info('service unreachable', {
						...call,
						attempts: attempt,
						ms: Math.round(performance.now() - startedAt),
						reason
					});
					this.answered(false, 'network', reason);
					throw new ContractError('UPSTREAM_UNAVAILABLE', `the service could not be reached: ${reason}`);
				}
				await this.sleep(this.backoff(attempt, null, policy));
				continue;
			}
			this.observed(response.status, started);
			if (retryable(response.status) && attempt < policy.attempts) {
				const retryAfter = Number(response.headers.get('retry-after'));
				const wait = this.backoff(attempt, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null, policy);
				// A Retry-After longer than the policy allows is the caller's to honour, not ours to sleep through.
				if (wait <= policy.maxDelayMs) {
					await this.sleep(wait);
					continue;
				}
			}
			const outcome = { ...call, status: response.status, attempts: attempt, ms: Math.round(performance.now() - startedAt) };
			// a 5xx outage is one warning (answered); a refused rate is worth one each
			(response.status === 429 ? this.options.log?.warn : this.options.log?.info)?.('service answered', outcome);
			this.answered(response.status < 500, statusClassOf(response.status));
			return response;
		}
	}

	/** Whether the service's last final answer came (below 500): false while it cannot be reached or fails. */
	get reachable(): boolean {
		return this.#reachable;
	}

	#reachable = true;
	#downSince = 0;

	private observed(status: number | null, started: number): void {
		const statusClass = statusClassOf(status);
		upstreamRequests.inc({ status_class: statusClass });
		upstreamSeconds.observe({ status_class: statusClass }, (performance.now() - started) / 1000);
	}

	/**
	 * The outcome of a request after its retries: the first failure after a success is logged as a warning
	 * with its status class, the recovery once, and the state feeds the metrics and the pages' banner.
	 */
	private answered(reachable: boolean, statusClass: string, reason?: string): void {
		if (reachable === this.#reachable) return;
		this.#reachable = reachable;
		upstreamUp.set(reachable ? 1 : 0);
		if (!reachable) {
			this.#downSince = this.now();
			this.options.log?.warn('the service cannot be reached', { statusClass, reason: reason ?? null });
		} else this.options.log?.info('the service answers again', { downForMs: this.now() - this.#downSince });
		this.options.onReachability?.(reachable);
	}

	private interpret<T>(response: RawResponse, request: V1Request<T>): UpstreamResult<T> {
		const text = new TextDecoder().decode(response.body);
		if (response.status < 200 || response.status > 299) throw v1ErrorFromResponse(response.status, text);
		let json: unknown;
		try {
			json = JSON.parse(text);
		} catch {
			throw new ContractError('INVALID_RESPONSE', `${request.method} ${request.pathAndQuery.split('?')[0]}: the answer is not JSON`);
		}
		return { status: response.status, value: request.parse(json), replayed: response.headers.get('idempotent-replayed') === 'true' };
	}

	/** A `/v1` request whose Idempotency-Key the caller holds (or a GET); a non-2xx answer throws. */
	async call<T>(request: V1Request<T>, options: { idempotencyKey?: string; policy?: RetryPolicy } = {}): Promise<UpstreamResult<T>> {
		const response = await this.send(
			{ method: request.method, pathAndQuery: request.pathAndQuery, body: request.body, idempotencyKey: options.idempotencyKey },
			options.policy
		);
		return this.interpret(response, request);
	}

	/**
	 * A logical operation of the server (a rewrap, an invitation): its Idempotency-Key and exact request
	 * are stored under `operationKey` before the first attempt; every later call, also after a crash,
	 * sends that same request with that same key, whatever `request` holds this time.
	 */
	async perform<T>(operationKey: string, request: V1Request<T>, policy: RetryPolicy = BACKGROUND_RETRY): Promise<UpstreamResult<T>> {
		const operation = await loadOrCreateOperation(
			this.options.db,
			{ operationKey, method: request.method, pathAndQuery: request.pathAndQuery, body: request.body ?? null },
			new Date(this.now())
		);
		const response = await this.sendStored(operation, policy);
		if (operationSettled(response.status)) await completeOperation(this.options.db, operationKey, response.status, new Date(this.now()));
		return this.interpret(response, request);
	}

	/**
	 * Sends an operation the caller stored (many at once, e.g. a grant job) exactly as stored; the caller
	 * marks it complete when `operationSettled(status)`. A non-2xx answer throws, carrying that status.
	 */
	async performStored<T>(
		operation: StoredOperation,
		request: V1Request<T>,
		policy: RetryPolicy = BACKGROUND_RETRY
	): Promise<UpstreamResult<T>> {
		return this.interpret(await this.sendStored(operation, policy), request);
	}

	private sendStored(operation: StoredOperation, policy: RetryPolicy): Promise<RawResponse> {
		return this.send(
			{
				method: operation.method as RawRequest['method'],
				pathAndQuery: operation.pathAndQuery,
				body: operation.body ?? undefined,
				idempotencyKey: operation.idempotencyKey
			},
			policy
		);
	}
}

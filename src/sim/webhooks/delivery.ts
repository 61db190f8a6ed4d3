/**
 * Webhook delivery (contract 5.2, 6; docs/contract-gaps.md §9): every event is POSTed to the
 * company's URL with the headers of 5.2, signed with the current secret; one attempt at a time per
 * company, in order; a 10 s time-out; retries 10 s, 1 min, 5 min, 30 min and 2 h after a 408, 429,
 * 5xx, time-out or network error; none after 400, 401, 403, 422 or any other status. All timed on
 * the simulator's clock.
 */
import { concatBytes, hexEncode, utf8Encode } from '../../lib/crypto/index';
import type { SimClock, SimTimers } from '../clock';
import { nodeHmacSha256 } from '../hmac';
import { newDeliveryId, newEventId } from '../ids';
import { isoSeconds } from '../../lib/crypto/index';
import type { AttemptRecord, Delivery, Store } from '../state';
import { FaultBook, type AttemptFault } from './faults';

export const RETRY_INTERVALS_SECONDS = [10, 60, 300, 1800, 7200] as const;
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_USER_AGENT = 'Service-Webhooks/1.0';

/** `X-Service-Signature: t=<t>,v1=hex(HMAC-SHA256(secret, t + "." + rawBody))` (contract 5.2). */
export function webhookSignatureHeader(secret: string, t: number, body: string): string {
	const mac = nodeHmacSha256(utf8Encode(secret, 'webhook secret'), concatBytes(utf8Encode(`${t}.`), utf8Encode(body)));
	return `t=${t},v1=${hexEncode(mac)}`;
}

type Outcome = 'succeeded' | 'retry' | 'failed';

/** 2xx succeeds; 408, 429, 5xx and no answer are retried; everything else fails for good. */
export function classifyAttempt(status: number | null): Outcome {
	if (status === null) return 'retry';
	if (status >= 200 && status < 300) return 'succeeded';
	if (status === 408 || status === 429 || status >= 500) return 'retry';
	return 'failed';
}

interface SendResult {
	status: number | null;
	error: string | null;
}

const NETWORK_ERRORS: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ECONNRESET: 'connection reset',
	ENOTFOUND: 'host not found',
	EHOSTUNREACH: 'host unreachable'
};

/** fetch reports "fetch failed" and keeps the reason in `cause`. */
function describeNetworkError(error: unknown): string {
	const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
	if (cause?.code && NETWORK_ERRORS[cause.code]) return NETWORK_ERRORS[cause.code];
	return cause?.message ?? cause?.code ?? (error instanceof Error ? error.message : String(error));
}

export class WebhookDispatcher {
	readonly faults = new FaultBook();
	private readonly queues = new Map<string, string[]>();
	private readonly running = new Map<string, Promise<void>>();
	private readonly retryTimers = new Map<string, () => void>();
	private readonly held = new Map<string, string[]>();
	private readonly inFlight = new Set<AbortController>();
	private closed = false;

	constructor(
		private readonly store: Store,
		private readonly clock: SimClock,
		private readonly timers: SimTimers
	) {}

	/** Creates the event and its delivery, and queues the first attempt (contract 6). */
	emit(companyId: string, type: string, data: Record<string, unknown>): Delivery {
		const now = this.clock.nowMs();
		const eventId = newEventId();
		const body = JSON.stringify({ id: eventId, type, createdAt: isoSeconds(now), companyId, data });
		const delivery: Delivery = {
			deliveryId: newDeliveryId(),
			eventId,
			eventType: type,
			companyId,
			conversationId: typeof data.conversationId === 'string' ? data.conversationId : null,
			body,
			status: 'pending',
			attempts: 0,
			lastStatus: null,
			lastError: null,
			nextAttemptAtMs: now,
			manualRetry: false,
			createdAtMs: now,
			updatedAtMs: now,
			attemptLog: []
		};
		this.store.addDelivery(delivery);
		const reorder = this.faults.takeReorder(companyId);
		if (reorder === null) {
			this.enqueue(delivery);
		} else {
			const held = this.held.get(companyId) ?? [];
			held.push(delivery.deliveryId);
			this.held.set(companyId, held);
			if (reorder === 'release') this.releaseHeld(companyId);
		}
		return delivery;
	}

	/** Sends the events held by a `reorder` fault, newest first. */
	releaseHeld(companyId: string): void {
		const held = this.held.get(companyId) ?? [];
		this.held.delete(companyId);
		for (const deliveryId of held.reverse()) {
			const delivery = this.store.deliveries.get(deliveryId);
			if (delivery) this.enqueue(delivery);
		}
	}

	/** The retry operation: one immediate attempt, and no automatic attempts after it. */
	retryNow(delivery: Delivery): void {
		if (this.isQueued(delivery)) return;
		this.retryTimers.get(delivery.deliveryId)?.();
		this.retryTimers.delete(delivery.deliveryId);
		delivery.manualRetry = true;
		delivery.status = 'pending';
		delivery.nextAttemptAtMs = this.clock.nowMs();
		delivery.updatedAtMs = delivery.nextAttemptAtMs;
		this.store.changed('deliveries', delivery.deliveryId);
		this.enqueue(delivery);
	}

	/** After loading a snapshot: pending deliveries go out again, in their original order. */
	resume(): void {
		const pending = [...this.store.deliveries.values()]
			.filter((delivery) => delivery.status === 'pending')
			.sort((a, b) => a.createdAtMs - b.createdAtMs);
		for (const delivery of pending) {
			if (delivery.nextAttemptAtMs !== null && delivery.nextAttemptAtMs > this.clock.nowMs()) this.schedule(delivery);
			else this.enqueue(delivery);
		}
	}

	/** Resolves when no attempt is queued or running (retries scheduled for later do not count). */
	async idle(): Promise<void> {
		while (this.running.size > 0) await Promise.all([...this.running.values()]);
	}

	close(): void {
		this.closed = true;
		for (const cancel of this.retryTimers.values()) cancel();
		this.retryTimers.clear();
		for (const controller of this.inFlight) controller.abort();
	}

	private isQueued(delivery: Delivery): boolean {
		return this.queues.get(delivery.companyId)?.includes(delivery.deliveryId) ?? false;
	}

	private schedule(delivery: Delivery): void {
		const cancel = this.timers.at(delivery.nextAttemptAtMs ?? this.clock.nowMs(), () => {
			this.retryTimers.delete(delivery.deliveryId);
			this.enqueue(delivery);
		});
		this.retryTimers.set(delivery.deliveryId, cancel);
	}

	private enqueue(delivery: Delivery): void {
		if (this.closed) return;
		const queue = this.queues.get(delivery.companyId) ?? [];
		queue.push(delivery.deliveryId);
		this.queues.set(delivery.companyId, queue);
		if (!this.running.has(delivery.companyId)) {
			const run = this.drain(delivery.companyId).finally(() => this.running.delete(delivery.companyId));
			this.running.set(delivery.companyId, run);
		}
	}

	private async drain(companyId: string): Promise<void> {
		const queue = this.queues.get(companyId) ?? [];
		while (queue.length > 0 && !this.closed) {
			const delivery = this.store.deliveries.get(queue[0]);
			try {
				if (delivery) await this.attempt(delivery);
			} catch (error) {
				console.error('[sim] webhook attempt failed unexpectedly:', error);
			} finally {
				queue.shift();
			}
		}
	}

	private async attempt(delivery: Delivery): Promise<void> {
		const company = this.store.companies.get(delivery.companyId);
		if (!company) return;
		const manual = delivery.manualRetry;
		const attempt = delivery.attempts + 1;
		const scheduledAtMs = delivery.nextAttemptAtMs ?? this.clock.nowMs();
		const startedAtMs = this.clock.nowMs();
		const url = company.webhookUrl;
		const fault = this.faults.takeAttemptFault(delivery.companyId);
		const headers = (): Record<string, string> => ({
			'content-type': 'application/json',
			'user-agent': WEBHOOK_USER_AGENT,
			'x-service-signature': webhookSignatureHeader(company.webhookSecret, this.clock.signatureNowSeconds(), delivery.body),
			'x-service-event-id': delivery.eventId,
			'x-service-delivery-id': delivery.deliveryId,
			'x-service-attempt': String(attempt)
		});

		let result: SendResult;
		let duplicateStatus: number | null | undefined;
		if (fault?.kind === 'status') {
			result = { status: fault.status ?? 503, error: 'injected status' };
		} else if (fault?.kind === 'duplicate') {
			const sameHeaders = headers();
			const [first, second] = await Promise.all([this.send(url, sameHeaders, delivery.body), this.send(url, sameHeaders, delivery.body)]);
			result = first;
			duplicateStatus = second.status;
		} else {
			result = await this.send(url, headers(), delivery.body);
			if (fault?.kind === 'timeout') result = { status: null, error: 'timeout (injected: the answer was dropped)' };
		}
		this.record(delivery, { attempt, scheduledAtMs, startedAtMs, url, result, fault, duplicateStatus, manual });
	}

	private record(
		delivery: Delivery,
		input: {
			attempt: number;
			scheduledAtMs: number;
			startedAtMs: number;
			url: string;
			result: SendResult;
			fault: AttemptFault | null;
			duplicateStatus: number | null | undefined;
			manual: boolean;
		}
	): void {
		const finishedAtMs = this.clock.nowMs();
		const entry: AttemptRecord = {
			attempt: input.attempt,
			scheduledAtMs: input.scheduledAtMs,
			startedAtMs: input.startedAtMs,
			finishedAtMs,
			url: input.url,
			status: input.result.status,
			error: input.result.error,
			injected: input.fault?.kind ?? null,
			manual: input.manual
		};
		if (input.duplicateStatus !== undefined) entry.duplicateStatus = input.duplicateStatus;
		delivery.attemptLog.push(entry);
		delivery.attempts = input.attempt;
		delivery.lastStatus = input.result.status;
		delivery.lastError = input.result.error;
		delivery.updatedAtMs = finishedAtMs;
		delivery.manualRetry = false;

		const outcome = classifyAttempt(input.result.status);
		const automaticFailures = delivery.attemptLog.filter((logged) => !logged.manual).length;
		const interval = RETRY_INTERVALS_SECONDS[automaticFailures - 1];
		if (outcome === 'retry' && !input.manual && interval !== undefined) {
			delivery.status = 'pending';
			delivery.nextAttemptAtMs = finishedAtMs + interval * 1000;
			this.schedule(delivery);
		} else {
			delivery.status = outcome === 'succeeded' ? 'succeeded' : 'failed';
			delivery.nextAttemptAtMs = null;
		}
		this.store.changed('deliveries', delivery.deliveryId);
	}

	/** One POST with a time-out of 10 s on the simulator's clock. */
	private async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
		const controller = new AbortController();
		let timedOut = false;
		const cancelTimeout = this.timers.at(this.clock.nowMs() + WEBHOOK_TIMEOUT_MS, () => {
			timedOut = true;
			controller.abort();
		});
		this.inFlight.add(controller);
		try {
			const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: controller.signal });
			await response.arrayBuffer();
			return { status: response.status, error: null };
		} catch (error) {
			if (timedOut) return { status: null, error: 'timeout' };
			if (this.closed) return { status: null, error: 'the simulator stopped' };
			return { status: null, error: describeNetworkError(error) };
		} finally {
			cancelTimeout();
			this.inFlight.delete(controller);
		}
	}
}

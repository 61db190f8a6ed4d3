/**
 * `Idempotency-Key` on every non-GET `/v1` request (contract 5.1 rules 1–2, 8;
 * docs/contract-gaps.md §3): up to 128 printable ASCII characters, kept 24 h per company on the
 * simulator's clock; the same request replays the stored response with `Idempotent-Replayed: true`,
 * another request is `409 IDEMPOTENCY_CONFLICT`, and concurrent identical requests have one effect.
 */
import { ContractError, readIdempotencyKey } from '../../lib/crypto/index';
import { createHash } from 'node:crypto';
import type { SimContext } from '../context';
import { errorResponse, type JsonResponse } from '../http/io';
import type { Company, IdempotencyEntry } from '../state';

export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/** The request's `Idempotency-Key`, or `400 IDEMPOTENCY_KEY_REQUIRED` / `400 INVALID_IDEMPOTENCY_KEY`. */
export function requireIdempotencyKey(header: string | undefined): string {
	if (header === undefined)
		throw new ContractError('IDEMPOTENCY_KEY_REQUIRED', 'Idempotency-Key is required on every request other than GET');
	return readIdempotencyKey(header) as string;
}

/** "Same request": the same method, `pathAndQuery` and body bytes. */
export function requestFingerprint(method: string, pathAndQuery: string, body: Uint8Array): string {
	return createHash('sha256').update(`${method}\n${pathAndQuery}\n`).update(body).digest('hex');
}

/** Whether a response is kept: not 5xx (a retry runs again) and not 429 (a retry after waiting must run). */
function isStored(status: number): boolean {
	return status < 500 && status !== 429;
}

function replay(entry: Pick<IdempotencyEntry, 'status' | 'headers' | 'body'>): JsonResponse {
	return { status: entry.status, body: JSON.parse(entry.body), headers: { ...entry.headers, 'idempotent-replayed': 'true' } };
}

function conflict(): never {
	throw new ContractError('IDEMPOTENCY_CONFLICT', 'this Idempotency-Key was used for a different request');
}

export class IdempotencyGate {
	private readonly running = new Map<string, { fingerprint: string; done: Promise<JsonResponse> }>();

	constructor(private readonly ctx: SimContext) {}

	/** Runs `execute` once per key and request; the errors it throws become stored responses too. */
	async run(
		company: Company,
		key: string,
		fingerprint: string,
		execute: () => Promise<JsonResponse> | JsonResponse
	): Promise<JsonResponse> {
		const entries = this.ctx.store.idempotencyOf(company.companyId);
		const now = this.ctx.clock.nowMs();
		const stored = entries.get(key);
		if (stored && stored.createdAtMs + IDEMPOTENCY_RETENTION_MS <= now) this.ctx.store.dropIdempotency(company.companyId, key);
		const entry = entries.get(key);
		if (entry) return entry.requestHash === fingerprint ? replay(entry) : conflict();

		const slot = `${company.companyId}\n${key}`;
		const running = this.running.get(slot);
		if (running) {
			if (running.fingerprint !== fingerprint) conflict();
			const response = await running.done;
			return { ...response, headers: { ...response.headers, 'idempotent-replayed': 'true' } };
		}

		const done = (async () => {
			try {
				return await execute();
			} catch (error) {
				return errorResponse(error);
			}
		})();
		this.running.set(slot, { fingerprint, done });
		try {
			const response = await done;
			if (isStored(response.status)) {
				this.ctx.store.storeIdempotency(company.companyId, key, {
					requestHash: fingerprint,
					status: response.status,
					headers: response.headers ?? {},
					body: JSON.stringify(response.body),
					createdAtMs: now
				});
			}
			return response;
		} finally {
			this.running.delete(slot);
		}
	}

	/** Drops keys older than 24 h (before the change log is compacted into a snapshot). */
	prune(): void {
		const cutoff = this.ctx.clock.nowMs() - IDEMPOTENCY_RETENTION_MS;
		for (const [companyId, entries] of this.ctx.store.idempotency) {
			for (const [key, entry] of entries) if (entry.createdAtMs <= cutoff) this.ctx.store.dropIdempotency(companyId, key);
		}
	}
}

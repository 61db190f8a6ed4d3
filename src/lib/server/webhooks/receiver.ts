/**
 * `POST /webhooks/service` (contract 5.2): reads the raw body before anything parses it, verifies the
 * signature with the crypto core against the current and the previous secret, stores the raw event
 * (deduplicated by event id, and a body without an id also by its bytes: docs/contract-gaps.md §14) and
 * answers 2xx only once it is committed; a failed store is 503 so the service retries. Processing happens
 * later, from the stored queue, under the id of the request that stored the event (request-context.ts).
 */
import { ContractError } from '../../errors';
import { verifyWebhookSignature } from '../../crypto/hmac';
import { parseWebhookEvent } from '../../wire/v1';
import type { Database } from '../db/database';
import type { StoredEvent } from '../db/webhook-events';
import { nodeHmacSha256 } from '../hmac';
import { decodeUtf8, errorResponse, json, readBodyBytes } from '../http/responses';
import { errorText, type Logger } from '../log';
import { webhookAckSeconds, webhooks, type WebhookOutcome } from '../metrics';
import { currentRequest } from '../request-context';
import { EventWriter, PGLITE_PACING, POSTGRES_PACING } from './event-writer';

export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export interface ReceiverOptions {
	db: Database;
	/** The current secret first, then the previous one during a rotation. */
	secrets: () => readonly string[];
	now: () => number;
	log: Logger;
	/**
	 * Called when no secret verifies: waits for a rotation in progress and reads the persisted secrets
	 * again; true when they changed (docs/inbox-api.md "Administration", webhook secret rotation).
	 */
	refreshSecrets?: () => Promise<boolean>;
	/** Called after a new event was committed, to hand it to the processor. */
	onStored?: (event: StoredEvent) => void;
}

function positiveInteger(value: string | null): number | null {
	return value !== null && /^[0-9]{1,9}$/.test(value) ? Number(value) : null;
}

export class WebhookReceiver {
	private readonly writer: EventWriter;

	constructor(private readonly options: ReceiverOptions) {
		this.writer = new EventWriter(
			options.db,
			() => new Date(options.now()),
			options.db.kind === 'pglite' ? PGLITE_PACING : POSTGRES_PACING
		);
	}

	/** Answers one delivery, counted by its outcome with the time it took (docs/operations.md "Metrics"). */
	async handle(request: Request): Promise<Response> {
		const started = performance.now();
		const { response, outcome } = await this.answer(request);
		webhooks.inc({ outcome });
		webhookAckSeconds.observe((performance.now() - started) / 1000);
		return response;
	}

	private async answer(request: Request): Promise<{ response: Response; outcome: WebhookOutcome }> {
		const deliveryId = request.headers.get('x-service-delivery-id')?.slice(0, 128) ?? null;
		const headerEventId = request.headers.get('x-service-event-id')?.slice(0, 128) ?? null;
		let body: Uint8Array;
		try {
			body = await readBodyBytes(request, WEBHOOK_BODY_LIMIT);
		} catch (error) {
			this.options.log.warn('webhook refused', { reason: errorText(error), delivery: deliveryId });
			return { response: errorResponse(error), outcome: 'refused_body' };
		}
		const verify = () =>
			verifyWebhookSignature(
				{
					secrets: this.options.secrets(),
					header: request.headers.get('x-service-signature'),
					body,
					now: Math.floor(this.options.now() / 1000)
				},
				nodeHmacSha256
			);
		try {
			try {
				verify();
			} catch (error) {
				// Signed with a secret rotated a moment ago (this process or another): learn it and check once more.
				if (!(error instanceof ContractError && error.code === 'SIGNATURE_INVALID' && (await this.options.refreshSecrets?.()))) throw error;
				verify();
			}
		} catch (error) {
			const code = error instanceof ContractError ? error.code : 'SIGNATURE_INVALID';
			const message = error instanceof ContractError ? error.message : 'the signature could not be checked';
			this.options.log.warn('webhook signature rejected', { code, reason: message, delivery: deliveryId, event: headerEventId });
			return { response: json({ error: { code, message } }, 401), outcome: 'refused_signature' };
		}

		let event: ReturnType<typeof parseWebhookEvent>;
		let rawBody: string;
		try {
			rawBody = decodeUtf8(body);
			event = parseWebhookEvent(rawBody, headerEventId);
		} catch (error) {
			this.options.log.warn('webhook body refused', { reason: errorText(error), delivery: deliveryId, event: headerEventId });
			return { response: errorResponse(error), outcome: 'refused_body' };
		}

		let seq: number | null;
		const received = { eventId: event.id, eventType: event.type.slice(0, 200), rawBody, requestId: currentRequest()?.requestId ?? null };
		try {
			seq = await this.writer.store({
				...received,
				idInBody: event.idInBody,
				deliveryId,
				attempt: positiveInteger(request.headers.get('x-service-attempt'))
			});
		} catch (error) {
			this.options.log.error('webhook not stored; the service will retry', {
				event: event.id,
				delivery: deliveryId,
				reason: errorText(error)
			});
			return {
				response: json({ error: { code: 'UNAVAILABLE', message: 'the event could not be stored; retry later' } }, 503),
				outcome: 'store_failed'
			};
		}
		if (seq !== null)
			this.options.onStored?.({ ...received, seq, processAttempts: 0, receivedAt: new Date(this.options.now()), leaseToken: null });
		return { response: json({ received: true, duplicate: seq === null }), outcome: seq === null ? 'duplicate' : 'acknowledged' };
	}
}

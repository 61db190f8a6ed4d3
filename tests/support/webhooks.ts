/**
 * Webhook requests as the service sends them (contract 5.2), signed with the crypto core, and the
 * public HMAC vectors' webhook cases (vectors/conformance.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hexEncode, sodiumHmacSha256, utf8Encode } from '../../src/lib/crypto/index';
import type { IncomingEvent } from '../../src/lib/server/db/webhook-events';

export interface WebhookVector {
	name: string;
	secret: string;
	now: number;
	header: string | null;
	body: string;
	error?: string;
}

export function webhookVectors(): WebhookVector[] {
	return JSON.parse(readFileSync(join(process.cwd(), 'vectors', 'conformance.json'), 'utf8')).hmac.webhooks;
}

/** `t=<t>,v1=<hex HMAC-SHA256(secret, t.body)>` with the core's HMAC. */
export function webhookSignature(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
	return `t=${t},v1=${hexEncode(sodiumHmacSha256(utf8Encode(secret), utf8Encode(`${t}.${body}`)))}`;
}

export function webhookHeaders(signature: string | null, eventId?: string, attempt = 1): Record<string, string> {
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		'user-agent': 'Service-Webhooks/1.0',
		'x-service-delivery-id': `dlv_test${attempt}`,
		'x-service-attempt': String(attempt)
	};
	if (signature !== null) headers['x-service-signature'] = signature;
	if (eventId) headers['x-service-event-id'] = eventId;
	return headers;
}

/** POSTs a signed event body to a receiver URL. */
export async function postWebhook(
	url: string,
	secret: string,
	body: string,
	options: { t?: number; eventId?: string } = {}
): Promise<Response> {
	return fetch(url, { method: 'POST', headers: webhookHeaders(webhookSignature(secret, body, options.t), options.eventId), body });
}

/** An event as the receiver stores it (db/webhook-events.ts): its id in its body, the first delivery. */
export function incomingEvent(event: { id: string; type: string }): IncomingEvent {
	return { eventId: event.id, idInBody: true, eventType: event.type, deliveryId: null, attempt: 1, rawBody: JSON.stringify(event) };
}

/**
 * What admins watch, as the inbox server's admin API carries it (docs/inbox-api.md §12, "Operations"):
 * the service's webhook deliveries, the events this inbox received and the conversations' trust states,
 * declared once for the server that builds them and the operations page that reads them. Types only.
 */
import type { DeliveryRecord } from '../wire/v1-records';
import type { Trust } from './records';

/** A webhook delivery as the service reports it (docs/contract-gaps.md §9), passed on unchanged. */
export type Delivery = DeliveryRecord;

/** `GET /api/admin/deliveries`: the service's page, newest first. */
export interface DeliveryPage {
	data: Delivery[];
	nextCursor: string | null;
}

/** A webhook event this inbox stored, with its processing state (contract 5.2). */
export interface ReceivedEvent {
	seq: number;
	eventId: string;
	type: string;
	deliveryId: string | null;
	state: 'received' | 'processed' | 'failed';
	/** Its data failed validation: set aside, never retried (docs/contract-gaps.md §14). */
	rejected: boolean;
	attempts: number;
	lastError: string | null;
	receivedAt: string;
	processedAt: string | null;
}

/** `GET /api/admin/events`, newest first. */
export interface ReceivedEventPage {
	data: ReceivedEvent[];
	/** Pass as `before` for the next (older) page. */
	nextCursor: string | null;
}

/** A conversation's trust state (contract 6.3). */
export interface TrustRow {
	conversationId: string;
	status: string;
	trust: Trust | null;
	keyVersion: number | null;
	lastActivityAt: string;
}

/** `GET /api/admin/trust`: the conversations with a trust state, and how many there are of each. */
export interface TrustOverview {
	data: TrustRow[];
	/** `verified`, `unverified` and `binding_invalid`, each counted. */
	counts: Record<string, number>;
}

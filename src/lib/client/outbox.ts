/**
 * Sends that have not been confirmed yet (contract 4.2 rule 4, 5.1 idempotency): the exact
 * envelope and its `Idempotency-Key`, kept in sessionStorage so that a retry — even after a reload —
 * resends the same bytes with the same key and the service acts once. Only ciphertext is stored.
 */
import type { Envelope } from '../crypto/message';

export interface PendingSend {
	localId: string;
	conversationId: string;
	idempotencyKey: string;
	contentType: 'text' | 'attachment';
	encryption: Envelope;
	attachment?: { attachmentId: string };
	createdAt: string;
}

type KeyValueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function isPendingSend(value: unknown): value is PendingSend {
	const entry = value as PendingSend;
	return (
		typeof entry === 'object' &&
		entry !== null &&
		typeof entry.localId === 'string' &&
		typeof entry.conversationId === 'string' &&
		typeof entry.idempotencyKey === 'string' &&
		(entry.contentType === 'text' || entry.contentType === 'attachment') &&
		typeof entry.encryption === 'object' &&
		entry.encryption !== null &&
		typeof entry.createdAt === 'string'
	);
}

export class Outbox {
	private readonly key: string;

	constructor(
		accountId: string,
		private readonly storage: KeyValueStorage | undefined = globalThis.sessionStorage
	) {
		this.key = `inbox:outbox:${accountId}`;
	}

	private read(): PendingSend[] {
		try {
			const parsed: unknown = JSON.parse(this.storage?.getItem(this.key) ?? '[]');
			return Array.isArray(parsed) ? parsed.filter(isPendingSend) : [];
		} catch {
			return [];
		}
	}

	private write(entries: PendingSend[]): void {
		try {
			if (entries.length === 0) this.storage?.removeItem(this.key);
			else this.storage?.setItem(this.key, JSON.stringify(entries));
		} catch {
			// storage full or refused: the entry stays in memory for this page's retries
		}
	}

	list(conversationId?: string): PendingSend[] {
		const entries = this.read();
		return conversationId === undefined ? entries : entries.filter((entry) => entry.conversationId === conversationId);
	}

	/** Stores (or replaces, by `localId`) an entry before its first attempt. */
	put(entry: PendingSend): void {
		this.write([...this.read().filter((other) => other.localId !== entry.localId), entry]);
	}

	/** Forgets an entry once the service confirmed it (or the agent discarded it). */
	remove(localId: string): void {
		this.write(this.read().filter((entry) => entry.localId !== localId));
	}
}

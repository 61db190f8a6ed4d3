/**
 * The audit log's hash chain (docs/threat-model.md, "An admin"): each entry carries the hash of the one
 * before it, `hash = SHA-256(prevHash ‖ "\n" ‖ canonical(entry))` in lowercase hex, the first entry's
 * `prevHash` being 64 zeros. Changing, deleting, inserting or reordering an entry breaks every hash
 * after it, which `verifyChain` finds; the server appends, the admin's page verifies. Pure: the same
 * code runs in Node and in the browser (WebCrypto).
 */

export interface AuditEntry {
	seq: number;
	/** `YYYY-MM-DDTHH:MM:SS.sssZ` */
	at: string;
	actorId: string | null;
	/** The actor's display name (or the username tried, for a failed sign-in) when it happened. */
	actorName: string | null;
	action: string;
	target: string | null;
	details: Record<string, string | number | boolean | null>;
	prevHash: string;
	hash: string;
}

export type AuditFields = Omit<AuditEntry, 'prevHash' | 'hash'>;

export const GENESIS_HASH = '0'.repeat(64);

/** The bytes an entry's hash covers: its fields in a fixed order, details sorted by key. */
export function canonicalEntry(entry: AuditFields): string {
	const details = Object.fromEntries(Object.entries(entry.details).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
	return JSON.stringify([entry.seq, entry.at, entry.actorId, entry.actorName, entry.action, entry.target, details]);
}

export async function entryHash(prevHash: string, entry: AuditFields): Promise<string> {
	const data = new TextEncoder().encode(`${prevHash}\n${canonicalEntry(entry)}`);
	const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data));
	return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export type ChainCheck = { ok: true; head: { seq: number; hash: string } } | { ok: false; brokenAt: number; reason: string };

/**
 * Checks entries in ascending order, continuing from `previous` (the entry before the first one, or
 * the start of the chain): consecutive numbers, each `prevHash` the hash before it, each hash right.
 */
export async function verifyChain(
	entries: readonly AuditEntry[],
	previous: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH }
): Promise<ChainCheck> {
	let last = previous;
	for (const entry of entries) {
		if (entry.seq !== last.seq + 1) {
			return { ok: false, brokenAt: last.seq + 1, reason: `entry ${last.seq + 1} is missing (found ${entry.seq} next)` };
		}
		if (entry.prevHash !== last.hash)
			return { ok: false, brokenAt: entry.seq, reason: `entry ${entry.seq} does not follow entry ${last.seq}` };
		const { prevHash: _prevHash, hash, ...fields } = entry;
		if ((await entryHash(entry.prevHash, fields)) !== hash) {
			return { ok: false, brokenAt: entry.seq, reason: `entry ${entry.seq} was changed after it was written` };
		}
		last = { seq: entry.seq, hash };
	}
	return { ok: true, head: last };
}

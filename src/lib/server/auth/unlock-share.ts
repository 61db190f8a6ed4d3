/**
 * The server's half of "unlock once per browser session" (docs/threat-model.md "A stolen laptop";
 * docs/inbox-api.md §2 "Unlock once per browser session"): 32 random bytes per session, from which the
 * browser's crypto worker derives the key it seals its unlocked agent key under in the browser's storage.
 * Neither half opens the key alone: the browser's copy without this share is useless, and the server
 * never sees the sealed copy. The share is given to the session's own requests only, and only while a tab
 * of the session is open — a live stream open now, or closed less than `UNLOCK_SHARE_GRACE_MS` ago (a
 * reload) — so closing the browser ends it; a lock or a sign-out drops it at once.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database';
import { STREAM_STALE_MS } from '../usage/caps';

/**
 * How long a session's share outlives its last open tab by default: enough for a reload, not for a
 * closed browser (`UNLOCK_SHARE_GRACE_SECONDS` sets it, config.ts).
 */
export const UNLOCK_SHARE_GRACE_MS = 45_000;
export const UNLOCK_SHARE_BYTES = 32;

/** Whether the session has a tab open now, or had one within the grace period (SQL over `sessions s`). */
const TAB_OPEN = `(
	greatest(s.unlock_share_at, s.tabs_closed_at) > $2
	or exists (select 1 from live_streams l where l.session_hash = s.token_hash and l.seen_at > $3)
)`;

function windows(now: Date, graceMs: number): [Date, Date] {
	return [new Date(now.getTime() - graceMs), new Date(now.getTime() - STREAM_STALE_MS)];
}

/** The session's share, made when it has none (or only one whose tabs are all gone); an unlocked tab calls it. */
export async function keepUnlockShare(db: Queryable, tokenHash: string, now: Date, graceMs = UNLOCK_SHARE_GRACE_MS): Promise<Uint8Array> {
	const [row] = await db.query<{ unlock_share: Uint8Array }>(
		`update sessions s set
		   unlock_share = case when s.unlock_share is not null and ${TAB_OPEN} then s.unlock_share else $4 end,
		   unlock_share_at = $5
		 where s.token_hash = $1
		 returning s.unlock_share`,
		[tokenHash, ...windows(now, graceMs), randomBytes(UNLOCK_SHARE_BYTES), now]
	);
	return new Uint8Array(row.unlock_share);
}

/** The session's share while one of its tabs is open; null otherwise, and a share left by a closed browser is dropped. */
export async function currentUnlockShare(
	db: Queryable,
	tokenHash: string,
	now: Date,
	graceMs = UNLOCK_SHARE_GRACE_MS
): Promise<Uint8Array | null> {
	const [row] = await db.query<{ unlock_share: Uint8Array | null; open: boolean }>(
		`select s.unlock_share, ${TAB_OPEN} as open from sessions s where s.token_hash = $1`,
		[tokenHash, ...windows(now, graceMs)]
	);
	if (!row?.unlock_share) return null;
	if (!row.open) {
		await dropUnlockShare(db, tokenHash);
		return null;
	}
	return new Uint8Array(row.unlock_share);
}

/** Lock or sign-out: the browser's sealed copy can no longer be opened. */
export async function dropUnlockShare(db: Queryable, tokenHash: string): Promise<void> {
	await db.query('update sessions set unlock_share = null, unlock_share_at = null where token_hash = $1', [tokenHash]);
}

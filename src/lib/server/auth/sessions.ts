/**
 * Sessions (docs/inbox-api.md §2): a random 32-byte token in an HttpOnly, SameSite=Strict cookie; the
 * database keeps only its SHA-256. A session ends 12 hours after its last use or 7 days after login.
 */
import { createHash, randomBytes } from 'node:crypto';
import { b64uEncode } from '../../crypto/encoding';
import { accountColumns, toAccount, type Account, type AccountRow } from '../db/accounts';
import type { Queryable } from '../db/database';
import { SESSION_ENDED_CHANNEL } from '../db/live-events';
import { deleteInBatches } from '../db/retention';

export const SESSION_COOKIE = 'inbox_session';
/** Readable by the page, saying only that it signed in (docs/inbox-api.md §2): a signed-out load skips `GET /api/session`. */
export const SIGNED_IN_COOKIE = 'inbox_signed_in';
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
/** How often a session's last use is written back (sliding expiry). */
const TOUCH_INTERVAL_MS = 60_000;

export interface Session {
	account: Account;
	expiresAt: Date;
	tokenHash: string;
}

export function hashToken(token: string): string {
	return createHash('sha256').update(token).digest('hex');
}

function expiryOf(createdAt: Date, lastSeenAt: Date): Date {
	return new Date(Math.min(createdAt.getTime() + SESSION_MAX_MS, lastSeenAt.getTime() + SESSION_IDLE_MS));
}

export async function createSession(db: Queryable, accountId: string, now: Date): Promise<{ token: string; expiresAt: Date }> {
	const token = b64uEncode(randomBytes(32));
	const expiresAt = expiryOf(now, now);
	await db.query('insert into sessions (token_hash, account_id, created_at, last_seen_at, expires_at) values ($1, $2, $3, $3, $4)', [
		hashToken(token),
		accountId,
		now,
		expiresAt
	]);
	await db.query('update accounts set last_active_at = $2 where account_id = $1', [accountId, now]);
	return { token, expiresAt };
}

interface SessionRow extends AccountRow {
	token_hash: string;
	session_created_at: Date;
	last_seen_at: Date;
	expires_at: Date;
}

async function findSession(db: Queryable, tokenHash: string, now: Date): Promise<SessionRow | undefined> {
	const [row] = await db.query<SessionRow>(
		`select s.token_hash, s.created_at as session_created_at, s.last_seen_at, s.expires_at, ${accountColumns('a')}
		 from sessions s join accounts a on a.account_id = s.account_id
		 where s.token_hash = $1 and s.expires_at > $2 and a.disabled_at is null`,
		[tokenHash, now]
	);
	return row;
}

/** The live session of a token, its expiry slid forward; undefined when unknown, expired or disabled. */
export async function resolveSession(db: Queryable, token: string | undefined, now: Date): Promise<Session | undefined> {
	// Stryker disable next-line all: equivalent: no longer token was ever handed out, so the lookup would find nothing either
	if (!token || token.length > 100) return undefined;
	const tokenHash = hashToken(token);
	const row = await findSession(db, tokenHash, now);
	if (!row) return undefined;
	let expiresAt = new Date(row.expires_at);
	if (now.getTime() - new Date(row.last_seen_at).getTime() > TOUCH_INTERVAL_MS) {
		expiresAt = expiryOf(new Date(row.session_created_at), now);
		await db.query('update sessions set last_seen_at = $2, expires_at = $3 where token_hash = $1', [tokenHash, now, expiresAt]);
		await db.query('update accounts set last_active_at = $2 where account_id = $1', [row.account_id, now]);
	}
	return { tokenHash, expiresAt, account: toAccount(row) };
}

/**
 * The session behind a token hash, without sliding it: a long-lived stream checks now and then that its
 * session still holds (an open tab alone does not keep a session alive).
 */
export async function resolveSessionByHash(db: Queryable, tokenHash: string, now: Date): Promise<Session | undefined> {
	const row = await findSession(db, tokenHash, now);
	return row && { tokenHash, expiresAt: new Date(row.expires_at), account: toAccount(row) };
}

/** Ends every session of an account (disabled or removed); every process closes their streams and forgets them. */
export async function deleteSessionsOf(db: Queryable, accountId: string): Promise<void> {
	const ended = await db.query<{ token_hash: string }>('delete from sessions where account_id = $1 returning token_hash', [accountId]);
	for (const { token_hash } of ended) await db.query('select pg_notify($1, $2)', [SESSION_ENDED_CHANNEL, token_hash]);
}

/** Ends a session; every server process closes the live streams it had (docs/inbox-api.md §7). */
export async function deleteSession(db: Queryable, token: string): Promise<void> {
	await db.query('delete from sessions where token_hash = $1', [hashToken(token)]);
	await db.query('select pg_notify($1, $2)', [SESSION_ENDED_CHANNEL, hashToken(token)]);
}

export async function deleteExpiredSessions(db: Queryable, now: Date): Promise<void> {
	await deleteInBatches(db, { table: 'sessions', key: 'token_hash', expired: 'expires_at <= $1' }, now);
}

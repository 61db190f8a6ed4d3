/**
 * What one account may spend of what the team shares (docs/inbox-api.md §1 "Caps"; docs/threat-model.md,
 * "An agent inside the roster"; docs/contract-gaps.md "Caps per account"): upload slots per hour (the
 * service allows the whole company 1,000 an hour), proxied writes per minute (sends, read receipts,
 * typing, closing), and live streams open at once per session and per account. Over a cap the request
 * is answered `429 RATE_LIMITED` with `Retry-After`, before anything is forwarded.
 *
 * The counts live in the database, so every inbox process shares one allowance: fixed windows counted by
 * one conditional upsert each (a refused request uses nothing), and one row per open stream, kept fresh
 * by the stream's heartbeat and counted as gone once its process stops refreshing it (killed, paused).
 */
import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../db/database';
import { deleteInBatches } from '../db/retention';
import { RateLimited } from '../http/responses';
import { capsRefused } from '../metrics';
import type { AccountUsage, UsageCaps } from '../../inbox-api/usage';

export type { AccountUsage, UsageCaps };

export const DEFAULT_CAPS: UsageCaps = {
	uploadsPerHour: 100,
	writesPerMinute: 240,
	streamsPerSession: 10,
	streamsPerAccount: 30
};

/** What a window counts, and how long it lasts. */
const WINDOWS = {
	upload: 3_600_000,
	write: 60_000
} as const;
export type WindowKind = keyof typeof WINDOWS;

/** A stream whose heartbeat (every 15 s) has not refreshed it for this long is no longer counted. */
export const STREAM_STALE_MS = 45_000;

/** Any constant shared by every process: the lock space of one account's streams. */
const STREAM_LOCK = 7_270_513;

function windowStart(kind: WindowKind, now: Date): Date {
	return new Date(Math.floor(now.getTime() / WINDOWS[kind]) * WINDOWS[kind]);
}

export class UsageCounter {
	constructor(
		private readonly db: Database,
		readonly caps: UsageCaps
	) {}

	/** Counts one use of `kind` for the account, or throws `RateLimited` (nothing counted) when its window is full. */
	async spend(accountId: string, kind: WindowKind, now: Date): Promise<void> {
		const limit = kind === 'upload' ? this.caps.uploadsPerHour : this.caps.writesPerMinute;
		const start = windowStart(kind, now);
		const counted = await this.db.query(
			`insert into usage_windows (account_id, kind, window_start, used) values ($1, $2, $3, 1)
			 on conflict (account_id, kind, window_start) do update set used = usage_windows.used + 1
			 where usage_windows.used < $4 returning used`,
			[accountId, kind, start, limit]
		);
		if (counted.length > 0) return;
		capsRefused.inc({ cap: kind });
		const retryAfterSeconds = Math.max(1, Math.ceil((start.getTime() + WINDOWS[kind] - now.getTime()) / 1000));
		throw new RateLimited(
			kind === 'upload'
				? `you started ${limit} uploads this hour, the most one account may; try again in ${retryAfterSeconds} s`
				: `you sent ${limit} requests to the service this minute, the most one account may; try again in ${retryAfterSeconds} s`,
			retryAfterSeconds
		);
	}

	/**
	 * Registers an open stream of the session, or throws `RateLimited` when the session or the account
	 * already holds its cap of fresh ones. Returns the stream's id, for `refreshStream` and `closeStream`.
	 */
	async openStream(accountId: string, sessionTokenHash: string, now: Date): Promise<string> {
		const streamId = `str_${randomBytes(12).toString('base64url')}`;
		const fresh = new Date(now.getTime() - STREAM_STALE_MS);
		await this.db.transaction(async (tx) => {
			await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [STREAM_LOCK, accountId]);
			const [counts] = await tx.query<{ account: number; session: number }>(
				`select count(*)::int as account, count(*) filter (where session_hash = $2)::int as session
				 from live_streams where account_id = $1 and seen_at > $3`,
				[accountId, sessionTokenHash, fresh]
			);
			if (counts.session >= this.caps.streamsPerSession || counts.account >= this.caps.streamsPerAccount) {
				capsRefused.inc({ cap: 'stream' });
				const which = counts.session >= this.caps.streamsPerSession ? 'this browser session' : 'this account';
				throw new RateLimited(`${which} already has as many live streams open as it may; close a tab`, STREAM_STALE_MS / 1000);
			}
			await tx.query('insert into live_streams (stream_id, account_id, session_hash, opened_at, seen_at) values ($1, $2, $3, $4, $4)', [
				streamId,
				accountId,
				sessionTokenHash,
				now
			]);
		});
		return streamId;
	}

	async refreshStream(streamId: string, now: Date): Promise<void> {
		await this.db.query('update live_streams set seen_at = $2 where stream_id = $1', [streamId, now]);
	}

	/** The stream closed; its session remembers when, for the share its tabs unlock with (auth/unlock-share.ts). */
	async closeStream(streamId: string, now: Date): Promise<void> {
		await this.db.query(
			`with closed as (delete from live_streams where stream_id = $1 returning session_hash)
			 update sessions set tabs_closed_at = $2 where token_hash in (select session_hash from closed)`,
			[streamId, now]
		);
	}

	/** Who used how much in the current windows, and their open streams (Admin → Operations). */
	async usage(now: Date): Promise<AccountUsage[]> {
		const rows = await this.db.query<{ account_id: string; display_name: string; uploads: number; writes: number; streams: number }>(
			`select a.account_id, a.display_name,
			        coalesce((select used from usage_windows u where u.account_id = a.account_id and u.kind = 'upload' and u.window_start = $1), 0) as uploads,
			        coalesce((select used from usage_windows u where u.account_id = a.account_id and u.kind = 'write' and u.window_start = $2), 0) as writes,
			        (select count(*)::int from live_streams s where s.account_id = a.account_id and s.seen_at > $3) as streams
			 from accounts a order by a.display_name, a.account_id`,
			[windowStart('upload', now), windowStart('write', now), new Date(now.getTime() - STREAM_STALE_MS)]
		);
		return rows
			.map((row) => ({
				accountId: row.account_id,
				displayName: row.display_name,
				uploadsThisHour: row.uploads,
				writesThisMinute: row.writes,
				openStreams: row.streams
			}))
			.filter((row) => row.uploadsThisHour + row.writesThisMinute + row.openStreams > 0);
	}
}

/** Deletes windows that ended more than a day ago and streams not refreshed for an hour (docs/operations.md "Retention"). */
export async function pruneUsage(db: Queryable, now: Date): Promise<void> {
	const dayAgo = new Date(now.getTime() - 24 * 3_600_000);
	await deleteInBatches(db, { table: 'usage_windows', key: 'ctid', expired: 'window_start < $1' }, dayAgo);
	await deleteInBatches(db, { table: 'live_streams', key: 'stream_id', expired: 'seen_at < $1' }, new Date(now.getTime() - 3_600_000));
}

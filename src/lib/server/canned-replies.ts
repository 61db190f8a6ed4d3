/**
 * Canned replies (docs/inbox-api.md §4 "Canned replies"): the team's, which admins manage, and each
 * agent's own. Ordinary inbox data, stored in clear: they are templates, filled in the agent's browser.
 */
import { randomBytes } from 'node:crypto';
import { ContractError } from '../errors';
import { b64uEncode } from '../crypto/encoding';
import { isoSeconds } from '../crypto/rules';
import type { CannedReply } from '../inbox-api/records';
import type { Account } from './db/accounts';
import type { Queryable } from './db/database';
import { uniquely } from './db/errors';

const SHORTCUT_RULE = /^[a-z0-9_-]{1,32}$/;
export const MAX_REPLY_BODY = 4000;

interface ReplyRow {
	reply_id: string;
	owner_id: string | null;
	shortcut: string;
	body: string;
	updated_at: Date;
}

const toReply = (row: ReplyRow): CannedReply => ({
	replyId: row.reply_id,
	scope: row.owner_id === null ? 'team' : 'personal',
	shortcut: row.shortcut,
	body: row.body,
	updatedAt: isoSeconds(row.updated_at)
});

/** The team's replies and the account's own, by shortcut (the account's own first on a tie). */
export async function listCannedReplies(db: Queryable, account: Account): Promise<CannedReply[]> {
	const rows = await db.query<ReplyRow>(
		'select * from canned_replies where owner_id is null or owner_id = $1 order by shortcut, owner_id nulls last',
		[account.accountId]
	);
	return rows.map(toReply);
}

/** A new reply; `team` ones need an admin. A shortcut its owner already uses is `409 ALREADY_EXISTS`. */
export async function createCannedReply(db: Queryable, account: Account, body: Record<string, unknown>, now: Date): Promise<CannedReply> {
	const { scope, shortcut, body: text } = body;
	if (scope !== 'team' && scope !== 'personal') throw new ContractError('INVALID_REQUEST', 'scope must be team or personal');
	if (scope === 'team' && account.role !== 'admin') throw new ContractError('FORBIDDEN', "only admins change the team's replies");
	if (typeof shortcut !== 'string' || !SHORTCUT_RULE.test(shortcut)) {
		throw new ContractError('INVALID_REQUEST', 'shortcut must be 1 to 32 of a-z 0-9 _ -');
	}
	if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_REPLY_BODY) {
		throw new ContractError('INVALID_REQUEST', `body must be 1 to ${MAX_REPLY_BODY} characters`);
	}
	const [row] = await uniquely(`the shortcut /${shortcut} is taken`, () =>
		db.query<ReplyRow>(
			'insert into canned_replies (reply_id, owner_id, shortcut, body, updated_at) values ($1, $2, $3, $4, $5) returning *',
			[`rpl_${b64uEncode(randomBytes(9))}`, scope === 'team' ? null : account.accountId, shortcut, text, now]
		)
	);
	return toReply(row);
}

/** Deletes one's own reply, or (admins) one of the team's. */
export async function deleteCannedReply(db: Queryable, account: Account, replyId: string): Promise<void> {
	const [row] = await db.query<ReplyRow>('select * from canned_replies where reply_id = $1', [replyId]);
	if (!row || (row.owner_id !== null && row.owner_id !== account.accountId)) throw new ContractError('NOT_FOUND', `no reply ${replyId}`);
	if (row.owner_id === null && account.role !== 'admin') throw new ContractError('FORBIDDEN', "only admins change the team's replies");
	await db.query('delete from canned_replies where reply_id = $1', [replyId]);
}

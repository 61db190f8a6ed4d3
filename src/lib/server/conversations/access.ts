/**
 * Who may act on a conversation, and who counts as an agent of the team (docs/inbox-api.md §1 "Access";
 * docs/threat-model.md, "An account outside the roster"; contract 2.9, 6.4): an admin; an agent whose
 * registered key — the same public key — is in the latest verified roster; and for a conversation, such an
 * agent whose key the conversation is sealed for. A new hire whose key no roster holds yet, an agent the
 * latest roster left out (whose account and old wraps remain), an account without a key and a disabled
 * one are none of these.
 */
import { ContractError } from '../../errors';
import { latestAcceptedRoster, type RosterDeps } from '../admin/roster';
import type { Account } from '../db/accounts';
import type { Queryable } from '../db/database';
import { errorText } from '../log';

/** SQL: the latest roster holds the key `keyId` with `publicKey` (two SQL expressions). */
export const inLatestRoster = (keyId: string, publicKey: string): string => `exists (
	select 1 from roster_versions r, jsonb_array_elements(r.agents) entry
	where r.roster_version = (select max(roster_version) from roster_versions)
	  and entry ->> 'agentKeyId' = ${keyId} and entry ->> 'publicKey' = ${publicKey})`;

/** The latest roster holds the account's key (id and public key). */
const IN_LATEST_ROSTER = inLatestRoster('$1', '$2');

export async function isRosterAgent(db: Queryable, account: Account): Promise<boolean> {
	if (account.disabledAt) return false;
	if (account.role === 'admin') return true;
	// Stryker disable next-line all: equivalent: the roster query matches no missing key id or public key (`a ->> … = null` is never true)
	if (!account.agentKeyId || !account.agentPublicKey) return false;
	const [row] = await db.query<{ member: boolean }>(`select ${IN_LATEST_ROSTER} as member`, [account.agentKeyId, account.agentPublicKey]);
	return row.member;
}

export async function hasConversationAccess(db: Queryable, account: Account, conversationId: string): Promise<boolean> {
	if (account.disabledAt) return false;
	if (account.role === 'admin') return true;
	// Stryker disable next-line all: equivalent: the roster query matches no missing key id or public key (`a ->> … = null` is never true)
	if (!account.agentKeyId || !account.agentPublicKey) return false;
	const rows = await db.query(`select 1 from agent_wraps w where w.conversation_id = $3 and w.agent_key_id = $1 and ${IN_LATEST_ROSTER}`, [
		account.agentKeyId,
		account.agentPublicKey,
		conversationId
	]);
	return rows.length > 0;
}

/** At most one look at the service's roster per process in this time, whoever is refused meanwhile. */
const ROSTER_LOOK_INTERVAL_MS = 2_000;
const lastRosterLook = new WeakMap<object, number>();

/**
 * Before refusing an agent with a key, the inbox looks for a newer roster at the service (one uploaded
 * by another tool, e.g. the demo launcher), which is kept only when it verifies with `signing.pub`; true
 * when one was kept. Refusals cannot make the inbox ask the service more than once per interval.
 */
async function learnedNewerRoster(deps: RosterDeps, account: Account): Promise<boolean> {
	// Stryker disable next-line BooleanLiteral: equivalent: true only makes the caller ask the roster again, which refuses the same
	if (!account.agentKeyId || account.disabledAt) return false;
	// Stryker disable next-line ConditionalExpression,BooleanLiteral: equivalent: an enabled admin is let in before any look, and a disabled one is refused on the line before
	if (account.role !== 'agent') return false;
	const now = deps.now();
	// Stryker disable next-line BooleanLiteral: equivalent: true only makes the caller ask the roster again, which refuses the same
	if (now - (lastRosterLook.get(deps.db) ?? -Infinity) < ROSTER_LOOK_INTERVAL_MS) return false;
	lastRosterLook.set(deps.db, now);
	const latestVersion = async () =>
		// Stryker disable next-line OptionalChaining: equivalent: select max(…) always answers one row
		(await deps.db.query<{ v: number | null }>('select max(roster_version) as v from roster_versions'))[0]?.v;
	const before = await latestVersion();
	await latestAcceptedRoster(deps).catch((error) =>
		deps.log.warn('could not look for a newer roster at the service', { reason: errorText(error) })
	);
	// Stryker disable next-line ConditionalExpression: equivalent: with nothing newer kept, the roster asked again refuses the same
	return (await latestVersion()) !== before;
}

/** Refuses with `403 NOT_IN_ROSTER` unless the account is an admin or an agent of the latest roster. */
export async function requireRosterAgent(deps: RosterDeps, account: Account): Promise<void> {
	if (await isRosterAgent(deps.db, account)) return;
	if ((await learnedNewerRoster(deps, account)) && (await isRosterAgent(deps.db, account))) return;
	throw new ContractError('NOT_IN_ROSTER', 'only an admin or an agent of the latest signed roster may do this');
}

/** Refuses with `404 NOT_FOUND` when the inbox knows no such conversation, `403 NO_CONVERSATION_ACCESS` without access. */
export async function requireConversationAccess(deps: RosterDeps, account: Account, conversationId: string): Promise<void> {
	const known = await deps.db.query('select 1 from conversations where conversation_id = $1', [conversationId]);
	if (known.length === 0) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
	if (await hasConversationAccess(deps.db, account, conversationId)) return;
	if ((await learnedNewerRoster(deps, account)) && (await hasConversationAccess(deps.db, account, conversationId))) return;
	throw new ContractError(
		'NO_CONVERSATION_ACCESS',
		'only an admin or an agent of the latest roster who holds this conversation’s key may do this'
	);
}

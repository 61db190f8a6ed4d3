/**
 * Conversations as the inbox knows them (docs/inbox-api.md §4): the service's status, the trust state from
 * the invite binding (contract 6.3), the re-invitation's rewrap state (6.4), and each account's view of
 * them (unread count, the account's own agent wraps). The company wrap is ciphertext; K is never stored.
 */
import { ContractError } from '../../errors';
import type { ConversationStatus, Wrap } from '../../wire/v1';
import type { Account } from './accounts';
import type { Queryable } from './database';
import type {
	ConversationActivity,
	ConversationKeyEvent,
	ConversationView,
	CustomerProfile,
	RewrapState,
	TeamState,
	Trust
} from '../../inbox-api/records';
import { KEY_EVENTS_SELECT } from './conversation-events';
import { ACTIVITY_SELECT } from './conversation-activity';
import { isoSeconds } from '../../crypto/rules';

export type { ConversationView, RewrapState, Trust };

export interface ConversationState {
	conversationId: string;
	status: ConversationStatus;
	trust: Trust | null;
	keyVersion: number | null;
	wrapForCompany: Wrap | null;
	userPublicKey: string | null;
	rewrapState: RewrapState;
	rewrapAttempts: number;
	/** Who asked for the pending rewrap, when the team wants someone else to approve it. */
	rewrapRequestedBy: string | null;
	/** When the rewrap waiting for an approval was asked for (its re-invitation), when known. */
	rewrapRequestedAt: Date | null;
	startedEventAt: Date | null;
}

interface StateRow {
	conversation_id: string;
	status: ConversationStatus;
	trust: Trust | null;
	key_version: number | null;
	wrap_for_company: Wrap | null;
	user_public_key: string | null;
	rewrap_state: RewrapState;
	rewrap_attempts: number;
	rewrap_requested_by: string | null;
	rewrap_requested_at: Date | null;
	started_event_at: Date | null;
}

/** Creates the row of a conversation the inbox just heard of (an invitation, an early event); returns whether it is new. */
export async function ensureConversation(tx: Queryable, conversationId: string, status: ConversationStatus, now: Date): Promise<boolean> {
	const rows = await tx.query(
		`insert into conversations (conversation_id, status, created_at, last_activity_at, updated_at)
		 values ($1, $2, $3, $3, $3) on conflict (conversation_id) do nothing returning conversation_id`,
		[conversationId, status, now]
	);
	return rows.length > 0;
}

/** The conversation's state, locked for the rest of the transaction. */
export async function lockConversation(tx: Queryable, conversationId: string): Promise<ConversationState | undefined> {
	const [row] = await tx.query<StateRow>(
		`select conversation_id, status, trust, key_version, wrap_for_company, user_public_key, rewrap_state, rewrap_attempts,
		        rewrap_requested_by, rewrap_requested_at, started_event_at
		 from conversations where conversation_id = $1 for update`,
		[conversationId]
	);
	return (
		row && {
			conversationId: row.conversation_id,
			status: row.status,
			trust: row.trust,
			keyVersion: row.key_version,
			wrapForCompany: row.wrap_for_company,
			userPublicKey: row.user_public_key,
			rewrapState: row.rewrap_state,
			rewrapAttempts: row.rewrap_attempts,
			rewrapRequestedBy: row.rewrap_requested_by,
			rewrapRequestedAt: row.rewrap_requested_at ? new Date(row.rewrap_requested_at) : null,
			startedEventAt: row.started_event_at ? new Date(row.started_event_at) : null
		}
	);
}

/** Records a `conversation.started` (contract 6): the new key, trust and rewrap state. */
export async function recordStart(
	tx: Queryable,
	input: {
		conversationId: string;
		status: ConversationStatus;
		trust: Trust;
		wrapForCompany: Wrap;
		userPublicKey: string;
		rewrapState: RewrapState;
		/** Who must not approve the rewrap (the person who re-invited), when a second person must. */
		rewrapRequestedBy: string | null;
		/** When the rewrap that waits for an approval was asked for. */
		rewrapRequestedAt?: Date | null;
		startedEventAt: Date;
	},
	now: Date
): Promise<void> {
	await tx.query(
		`update conversations set status = $2, trust = $3, key_version = $4, wrap_for_company = $5::jsonb, user_public_key = $6,
		   rewrap_state = $7, rewrap_error = null, rewrap_attempts = 0, rewrap_next_attempt_at = $8, rewrap_confirmed_by = null,
		   rewrap_requested_by = $10, rewrap_requested_at = $11, started_event_at = $9, started_at = coalesce(started_at, $8), last_activity_at = greatest(last_activity_at, $8),
		   closed_at = null, updated_at = $8
		 where conversation_id = $1`,
		[
			input.conversationId,
			input.status,
			input.trust,
			input.wrapForCompany.keyVersion,
			JSON.stringify(input.wrapForCompany),
			input.userPublicKey,
			input.rewrapState,
			now,
			input.startedEventAt,
			input.rewrapRequestedBy,
			input.rewrapRequestedAt ?? null
		]
	);
}

export async function updateStatus(
	tx: Queryable,
	conversationId: string,
	change: { status?: ConversationStatus | null; userDeleted?: boolean | null },
	now: Date
): Promise<void> {
	await tx.query(
		`update conversations set status = coalesce($2, status), user_deleted = coalesce($3, user_deleted),
		   closed_at = case when $2::text = 'closed' then coalesce(closed_at, $4) when $2::text is null then closed_at else null end,
		   updated_at = $4
		 where conversation_id = $1`,
		[conversationId, change.status ?? null, change.userDeleted ?? null, now]
	);
}

/**
 * Messages arrived: each conversation exists (created active if it is new here) and its last activity
 * moves forward to the given time.
 */
export async function recordActivities(tx: Queryable, latest: ReadonlyMap<string, Date>, now: Date): Promise<void> {
	if (latest.size === 0) return;
	await tx.query(
		`insert into conversations (conversation_id, status, created_at, last_activity_at, updated_at)
		 select conversation_id, 'active', $3, at, $3 from unnest($1::text[], $2::timestamptz[]) as a (conversation_id, at)
		 on conflict (conversation_id) do update
		 set last_activity_at = greatest(conversations.last_activity_at, excluded.last_activity_at), updated_at = excluded.updated_at`,
		[[...latest.keys()], [...latest.values()], now]
	);
}

export async function recordActivity(tx: Queryable, conversationId: string, at: Date, now: Date): Promise<void> {
	await recordActivities(tx, new Map([[conversationId, at]]), now);
}

export async function setRewrapState(
	tx: Queryable,
	conversationId: string,
	change: { state: RewrapState; error?: string | null; nextAttemptAt?: Date | null; attempts?: number; confirmedBy?: string },
	now: Date
): Promise<void> {
	await tx.query(
		`update conversations set rewrap_state = $2, rewrap_error = $3, rewrap_next_attempt_at = $4,
		   rewrap_attempts = coalesce($5, rewrap_attempts), rewrap_confirmed_by = coalesce($6, rewrap_confirmed_by), updated_at = $7
		 where conversation_id = $1`,
		[
			conversationId,
			change.state,
			change.error ?? null,
			change.nextAttemptAt ?? null,
			change.attempts ?? null,
			change.confirmedBy ?? null,
			now
		]
	);
}

/** Conversations whose rewrap is queued and due. */
export async function dueRewraps(db: Queryable, now: Date, limit: number): Promise<string[]> {
	const rows = await db.query<{ conversation_id: string }>(
		`select conversation_id from conversations where rewrap_state = 'queued' and (rewrap_next_attempt_at is null or rewrap_next_attempt_at <= $1)
		 order by rewrap_next_attempt_at nulls first limit $2`,
		[now, limit]
	);
	return rows.map((row) => row.conversation_id);
}

// ---------------------------------------------------------------------------------------------------
// An account's view (docs/inbox-api.md §4)

interface ViewRow {
	conversation_id: string;
	status: ConversationStatus;
	trust: Trust | null;
	rewrap_state: RewrapState;
	rewrap_error: string | null;
	key_version: number | null;
	user_deleted: boolean;
	created_at: Date;
	started_at: Date | null;
	last_activity_at: Date;
	closed_at: Date | null;
	unread_count: number;
	agent_wraps: { agentKeyId: string; rosterVersion: number; wrap: Wrap }[];
	key_events: ConversationKeyEvent[];
	may_approve_rewrap: boolean;
	assignee_id: string | null;
	assignee_name: string | null;
	team_id: string | null;
	team_name: string | null;
	team_state: TeamState;
	snoozed_until: Date | null;
	activity: ConversationActivity[];
	profile: CustomerProfile | null;
	labels: string[];
	linked_conversations: string[];
	in_roster: boolean;
	first_customer_at: Date | null;
	first_reply_at: Date | null;
}

/** Whether the key `keyId` with public key `publicKey` (SQL expressions) is in the latest roster. */
const latestRosterHolds = (
	keyId: string,
	publicKey: string
): string => `(select exists (select 1 from roster_versions rv, jsonb_array_elements(rv.agents) ra
	          where rv.roster_version = (select max(roster_version) from roster_versions)
	            and ra ->> 'agentKeyId' = ${keyId} and ra ->> 'publicKey' = ${publicKey}))`;

/** Whether the key `$2` with public key `$3` is in the latest roster. */
export const IN_LATEST_ROSTER = latestRosterHolds('$2', '$3');

/** The customer's messages of conversation `c` after the read mark `r` of the account (migration 33). */
export const UNREAD_MESSAGES = `coalesce(customer.stored - coalesce(r.customer_messages_read, 0), 0)`;

/** The first responses kept of each conversation `c` (docs/reports.md "Cost"), which `CLOCK_COLUMNS` read. */
export const RESPONSE_FACTS_JOIN = `left join conversation_response_facts response on response.conversation_id = c.conversation_id`;

/** The times of conversation `c`'s service clock (docs/service-targets.md), with `RESPONSE_FACTS_JOIN`. */
export const CLOCK_COLUMNS = `c.created_at, response.first_in_at as first_customer_at, response.first_reply_at as first_reply_at`;

/** The ids of conversation `c`'s labels, in order, as a JSON array. */
export const LABEL_IDS = `coalesce((select jsonb_agg(l.label_id order by l.label_id) from conversation_labels l
	          where l.conversation_id = c.conversation_id), '[]'::jsonb)`;

/** The columns of a view that are the same whoever looks. */
const SHARED_COLUMNS = `c.conversation_id, c.status, c.trust, c.rewrap_state, c.rewrap_error, c.key_version, c.user_deleted,
	       ${CLOCK_COLUMNS}, c.started_at, c.last_activity_at, c.closed_at,
	       ${KEY_EVENTS_SELECT} as key_events,
	       c.assignee_id, assignee.display_name as assignee_name, c.team_id, team.name as team_name, c.team_state, c.snoozed_until,
	       ${ACTIVITY_SELECT} as activity,
	       (select jsonb_build_object('authorId', p.author_id, 'authorName', p.author_name, 'envelope', p.envelope, 'version', p.version,
	                 'updatedAt', to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
	          from customer_profiles p where p.conversation_id = c.conversation_id) as profile,
	       ${LABEL_IDS} as labels,
	       coalesce((select jsonb_agg(o.conversation_id order by o.created_at) from conversations o
	          where c.customer_group is not null and o.customer_group = c.customer_group and o.conversation_id <> c.conversation_id),
	         '[]'::jsonb) as linked_conversations`;

const SHARED_JOINS = `left join accounts assignee on assignee.account_id = c.assignee_id
	left join teams team on team.team_id = c.team_id
	${RESPONSE_FACTS_JOIN}`;

/**
 * The columns of a view that depend on who looks: `accountId` and `keyId` are SQL expressions of the
 * account and its key, `inRoster` whether that key is in the latest roster; with `viewerJoins` of the same account.
 */
const viewerColumns = (accountId: string, keyId: string, inRoster: string): string => `${UNREAD_MESSAGES} as unread_count,
	       coalesce((select jsonb_agg(jsonb_build_object('agentKeyId', w.agent_key_id, 'rosterVersion', w.roster_version, 'wrap', w.wrap))
	          from agent_wraps w where w.conversation_id = c.conversation_id and w.agent_key_id = ${keyId}), '[]'::jsonb) as agent_wraps,
	       c.rewrap_requested_by is distinct from ${accountId} as may_approve_rewrap,
	       ${inRoster} as in_roster`;

const viewerJoins = (
	accountId: string
): string => `left join agent_reads r on r.conversation_id = c.conversation_id and r.account_id = ${accountId}
	left join conversation_customer_messages customer on customer.conversation_id = c.conversation_id`;

/** The view of each conversation `c` for the account `$1` with key `$2` and public key `$3`, with `extraColumns`. */
const viewSelect = (extraColumns = '') => `
	select ${SHARED_COLUMNS},
	       ${viewerColumns('$1', '$2', IN_LATEST_ROSTER)}${extraColumns}
	from conversations c
	${SHARED_JOINS}
	${viewerJoins('$1')}`;
const VIEW_SELECT = viewSelect();

/** What of a view depends on who looks. */
type ViewerPart = Pick<ViewRow, 'unread_count' | 'agent_wraps' | 'may_approve_rewrap' | 'in_roster'>;
/** What of a view is the same for every account. */
type SharedPart = Omit<ViewRow, keyof ViewerPart>;

/** Whether `account` may read a conversation of which it has this part of the view (docs/inbox-api.md §1 "Access"). */
function mayReadView(part: Pick<ViewRow, 'in_roster' | 'agent_wraps'>, account: Account): boolean {
	return !account.disabledAt && (account.role === 'admin' || (part.in_roster && part.agent_wraps.length > 0));
}

/**
 * The row as `account` may see it (docs/inbox-api.md §1 "Access"): whole for an admin or an agent of the
 * latest roster whose key the conversation is sealed for; otherwise only that it exists, and its state.
 */
function toView(row: ViewRow, account: Account): ConversationView {
	const readable = mayReadView(row, account);
	return {
		conversationId: row.conversation_id,
		status: row.status,
		trust: row.trust,
		rewrap: { state: row.rewrap_state, error: readable ? row.rewrap_error : null },
		keyVersion: row.key_version,
		userDeleted: row.user_deleted,
		...clockTimesOf(row),
		startedAt: row.started_at ? isoSeconds(row.started_at) : null,
		lastActivityAt: isoSeconds(row.last_activity_at),
		closedAt: row.closed_at ? isoSeconds(row.closed_at) : null,
		unreadCount: readable ? row.unread_count : 0,
		readable,
		agentWraps: readable ? row.agent_wraps : [],
		keyEvents: readable ? row.key_events : [],
		mayApproveRewrap: readable && row.may_approve_rewrap,
		teamState: row.team_state,
		snoozedUntil: row.snoozed_until ? isoSeconds(row.snoozed_until) : null,
		assignee: row.assignee_id && row.assignee_name ? { accountId: row.assignee_id, displayName: row.assignee_name } : null,
		team: row.team_id && row.team_name ? { teamId: row.team_id, name: row.team_name } : null,
		activity: readable ? row.activity : [],
		profile: readable ? row.profile : null,
		labels: readable ? row.labels : [],
		linkedConversations: readable ? row.linked_conversations : []
	};
}

/** The `CLOCK_COLUMNS` of a row: Dates as columns, or their ISO text as a JSON aggregate gives them. */
export interface ClockRow {
	created_at: Date | string;
	first_customer_at: Date | string | null;
	first_reply_at: Date | string | null;
}

/** A conversation's service clock as its view shows it: to the second, as the page measures its deadline from. */
export function clockTimesOf(row: ClockRow): Pick<ConversationView, 'createdAt' | 'firstCustomerAt' | 'firstReplyAt'> {
	return {
		createdAt: isoSeconds(row.created_at),
		firstCustomerAt: row.first_customer_at ? isoSeconds(row.first_customer_at) : null,
		firstReplyAt: row.first_reply_at ? isoSeconds(row.first_reply_at) : null
	};
}

export async function getConversationView(db: Queryable, account: Account, conversationId: string): Promise<ConversationView | undefined> {
	const [row] = await db.query<ViewRow>(`${VIEW_SELECT} where c.conversation_id = $4`, [
		account.accountId,
		account.agentKeyId,
		account.agentPublicKey,
		conversationId
	]);
	return row && toView(row, account);
}

/**
 * The views of conversations for many accounts at once (docs/inbox-api.md §7 "Fan-out"), in two
 * statements whatever their number: what every account is shown alike, once per conversation, and what
 * differs, once per conversation and account. `viewOf` composes one account's view, as
 * `getConversationView` would have answered; `mayRead` says whether it may read the conversation, as
 * `hasConversationAccess` would have. A conversation the inbox does not know has no view.
 */
export interface ConversationViews {
	viewOf(conversationId: string, account: Account): ConversationView | undefined;
	mayRead(conversationId: string, account: Account): boolean;
	/** Whether `account` was among those asked about (by account id and key). */
	covers(account: Account): boolean;
}

export async function getConversationViews(
	db: Queryable,
	accounts: readonly Account[],
	conversationIds: { viewed: readonly string[]; read: readonly string[] }
): Promise<ConversationViews> {
	const asked = [...new Set([...conversationIds.viewed, ...conversationIds.read])];
	const [viewerRows, sharedRows] = await Promise.all([
		asked.length === 0
			? []
			: db.query<ViewerPart & { conversation_id: string; position: string }>(
					`with viewer as materialized (
					   select v.account_id, v.key_id, v.position, ${latestRosterHolds('v.key_id', 'v.public_key')} as in_roster
					   from unnest($1::text[], $2::text[], $3::text[]) with ordinality as v (account_id, key_id, public_key, position))
					 select viewer.position, c.conversation_id, ${viewerColumns('viewer.account_id', 'viewer.key_id', 'viewer.in_roster')}
					 from viewer cross join conversations c
					 ${viewerJoins('viewer.account_id')}
					 where c.conversation_id = any($4::text[])`,
					[accounts.map((a) => a.accountId), accounts.map((a) => a.agentKeyId), accounts.map((a) => a.agentPublicKey), asked]
				),
		conversationIds.viewed.length === 0
			? []
			: db.query<SharedPart>(`select ${SHARED_COLUMNS} from conversations c ${SHARED_JOINS} where c.conversation_id = any($1::text[])`, [
					[...new Set(conversationIds.viewed)]
				])
	]);
	const shared = new Map(sharedRows.map((row) => [row.conversation_id, row]));
	const positions = new Map(accounts.map((account, index) => [viewerKeyOf(account), index + 1]));
	const parts = new Map(viewerRows.map((row) => [`${row.conversation_id}|${Number(row.position)}`, row]));
	const partOf = (conversationId: string, account: Account) => parts.get(`${conversationId}|${positions.get(viewerKeyOf(account))}`);
	return {
		viewOf(conversationId, account) {
			const common = shared.get(conversationId);
			const own = partOf(conversationId, account);
			return common && own && toView({ ...common, ...own }, account);
		},
		// of a conversation the inbox does not know, an admin may read what is left (as hasConversationAccess says)
		mayRead: (conversationId, account) => mayReadView(partOf(conversationId, account) ?? { in_roster: false, agent_wraps: [] }, account),
		covers: (account) => positions.has(viewerKeyOf(account))
	};
}

/** What of an account the per-account columns are asked by: its id and its key. */
const viewerKeyOf = (account: Account): string => `${account.accountId}|${account.agentKeyId ?? ''}|${account.agentPublicKey ?? ''}`;

/** The account's view of a conversation that must exist: `404 NOT_FOUND` otherwise. */
export async function requireConversationView(db: Queryable, account: Account, conversationId: string): Promise<ConversationView> {
	const view = await getConversationView(db, account, conversationId);
	if (!view) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
	return view;
}

export interface ViewFilter {
	status?: ConversationStatus;
	trust?: Trust;
	limit: number;
	/** After this (lastActivityAt, conversationId) in the descending order: the page before's `nextAfter`. */
	after?: { lastActivityAt: string; conversationId: string };
}

/**
 * One page of the list, newest activity first; its parameters are those of `listConversationViews`. Each
 * row also gives its last activity to the microsecond (`activity_key`), where the next page starts: the
 * view's time is to the second, and a cursor at the second would skip the rows later in that second.
 */
export const LIST_VIEWS_SQL = `${viewSelect(`,
	       to_char(c.last_activity_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as activity_key`)}
		 where ($4::text is null or c.status = $4) and ($5::text is null or c.trust = $5)
		   and ($6::timestamptz is null or (c.last_activity_at, c.conversation_id) < ($6::timestamptz, $7::text))
		 order by c.last_activity_at desc, c.conversation_id desc
		 limit $8`;

export async function listConversationViews(
	db: Queryable,
	account: Account,
	filter: ViewFilter
): Promise<{ views: ConversationView[]; hasMore: boolean; nextAfter?: ViewFilter['after'] }> {
	const rows = await db.query<ViewRow & { activity_key: string }>(LIST_VIEWS_SQL, [
		account.accountId,
		account.agentKeyId,
		account.agentPublicKey,
		filter.status ?? null,
		filter.trust ?? null,
		filter.after?.lastActivityAt ?? null,
		filter.after?.conversationId ?? null,
		filter.limit + 1
	]);
	const page = rows.slice(0, filter.limit);
	const last = page.at(-1);
	const hasMore = rows.length > filter.limit;
	return {
		views: page.map((row) => toView(row, account)),
		hasMore,
		nextAfter: hasMore && last ? { lastActivityAt: last.activity_key, conversationId: last.conversation_id } : undefined
	};
}

/**
 * The schema, as numbered migrations applied in order and never edited once released (add a new one).
 * Nothing here holds message plaintext or a conversation key: envelopes and wraps are ciphertext.
 */

export interface Migration {
	version: number;
	name: string;
	sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
	{
		version: 1,
		name: 'accounts, sessions, webhook queue, conversations, invites, rosters, operations, live events',
		sql: `
create table accounts (
	account_id text primary key,
	username text not null unique,
	display_name text not null,
	role text not null check (role in ('agent', 'admin')),
	password_hash text not null,
	agent_key_id text unique,
	agent_public_key text unique,
	agent_key_registered_at timestamptz,
	created_at timestamptz not null,
	disabled_at timestamptz
);

create table sessions (
	token_hash text primary key,
	account_id text not null references accounts (account_id) on delete cascade,
	created_at timestamptz not null,
	last_seen_at timestamptz not null,
	expires_at timestamptz not null
);
create index sessions_account on sessions (account_id);
create index sessions_expiry on sessions (expires_at);

-- Every verified webhook, raw, before any processing (contract 5.2): deduplicated by event id.
create table webhook_events (
	seq bigserial primary key,
	event_id text not null unique,
	event_type text not null,
	delivery_id text,
	attempt integer,
	raw_body text not null,
	received_at timestamptz not null,
	state text not null default 'pending' check (state in ('pending', 'processed', 'rejected', 'failed')),
	process_attempts integer not null default 0,
	next_attempt_at timestamptz not null,
	locked_until timestamptz,
	last_error text,
	processed_at timestamptz
);
create index webhook_events_due on webhook_events (next_attempt_at, seq) where state = 'pending';

create table conversations (
	conversation_id text primary key,
	status text not null check (status in ('pending', 'active', 'awaiting_key', 'closed')),
	trust text check (trust in ('verified', 'unverified', 'binding_invalid')),
	key_version integer,
	wrap_for_company jsonb,
	user_public_key text,
	user_deleted boolean not null default false,
	rewrap_state text not null default 'none'
		check (rewrap_state in ('none', 'needs_confirmation', 'blocked', 'queued', 'done', 'failed')),
	rewrap_error text,
	rewrap_attempts integer not null default 0,
	rewrap_next_attempt_at timestamptz,
	rewrap_confirmed_by text references accounts (account_id) on delete set null,
	started_event_at timestamptz,
	created_at timestamptz not null,
	started_at timestamptz,
	last_activity_at timestamptz not null,
	closed_at timestamptz,
	updated_at timestamptz not null
);
create index conversations_activity on conversations (last_activity_at desc, conversation_id);
create index conversations_rewrap on conversations (rewrap_next_attempt_at) where rewrap_state = 'queued';

-- Envelopes as received (user messages from webhooks, company messages as sent through the proxy).
create table conversation_messages (
	message_id text primary key,
	conversation_id text not null,
	seq integer,
	sender_type text not null,
	content_type text not null,
	encryption jsonb not null,
	attachment jsonb,
	created_at timestamptz not null,
	event_id text
);
create index conversation_messages_order on conversation_messages (conversation_id, seq, created_at);

create table agent_reads (
	account_id text not null references accounts (account_id) on delete cascade,
	conversation_id text not null,
	read_up_to_seq integer not null,
	updated_at timestamptz not null,
	primary key (account_id, conversation_id)
);

-- Conversation keys sealed for agents (contract 6.7): ciphertext only.
create table agent_wraps (
	conversation_id text not null,
	agent_key_id text not null,
	roster_version integer not null,
	wrap jsonb not null,
	received_at timestamptz not null,
	primary key (conversation_id, agent_key_id)
);

-- Invitation secrets (contract 6.3), deleted once the binding is checked or the invitation expires.
create table invite_secrets (
	invite_id text primary key,
	conversation_id text not null,
	kind text not null check (kind in ('invite', 'reinvite')),
	secret text not null,
	created_by text references accounts (account_id) on delete set null,
	created_at timestamptz not null,
	expires_at timestamptz not null
);
create index invite_secrets_conversation on invite_secrets (conversation_id);

create table roster_versions (
	roster_version integer primary key,
	issued_at text not null,
	agents jsonb not null,
	signature text not null,
	uploaded_by text references accounts (account_id) on delete set null,
	uploaded_at timestamptz not null
);

-- One Idempotency-Key per logical operation, stored with the exact request before the first attempt.
create table outgoing_operations (
	operation_key text primary key,
	idempotency_key text not null unique,
	method text not null,
	path_and_query text not null,
	body text,
	created_at timestamptz not null,
	completed_at timestamptz,
	response_status integer
);

-- What the browsers are told over SSE, in commit order, kept 24 hours for Last-Event-ID.
create table live_events (
	id bigserial primary key,
	type text not null,
	conversation_id text,
	payload jsonb not null,
	created_at timestamptz not null
);
`
	},
	{
		version: 2,
		name: 'the webhook queue indexed in arrival order',
		sql: `
-- The queue is read in arrival order: a partial index in that order stops after the batch it needs,
-- where the index by due time made the planner fetch and sort every pending event.
create index webhook_events_pending_order on webhook_events (seq) where state = 'pending';
drop index webhook_events_due;
`
	},
	{
		version: 3,
		name: 'administration: agent invitations, grant jobs and their per-conversation marks',
		sql: `
-- When the account last used the inbox (login, or a request that slid its session).
alter table accounts add column last_active_at timestamptz;

-- One-time links that let a person create their own account (docs/inbox-api.md "Administration").
-- Only the SHA-256 of the token is kept.
create table agent_invitations (
	invitation_id text primary key,
	token_hash text not null unique,
	display_name text not null,
	role text not null check (role in ('agent', 'admin')),
	created_by text references accounts (account_id) on delete set null,
	created_at timestamptz not null,
	expires_at timestamptz not null,
	used_at timestamptz,
	account_id text references accounts (account_id) on delete set null
);

-- A grant (contract 6.7): K of every earlier conversation sealed for the agents new in a roster.
create table grant_jobs (
	job_id text primary key,
	roster_version integer not null,
	agents jsonb not null,
	state text not null check (state in ('running', 'done', 'failed')),
	listed boolean not null default false,
	list_cursor text,
	total integer not null default 0,
	done integer not null default 0,
	failed integer not null default 0,
	started_at timestamptz not null,
	finished_at timestamptz,
	last_error text,
	-- The job of a newer roster that took over the agents this one had not finished.
	superseded_by text references grant_jobs (job_id),
	updated_at timestamptz not null
);
create index grant_jobs_running on grant_jobs (started_at) where state = 'running';

-- The conversations of a grant, each marked once its wraps are stored by the service.
create table grant_job_items (
	job_id text not null references grant_jobs (job_id) on delete cascade,
	conversation_id text not null,
	wrap_for_company jsonb not null,
	state text not null default 'pending' check (state in ('pending', 'done', 'failed')),
	error text,
	primary key (job_id, conversation_id)
);
create index grant_job_items_pending on grant_job_items (job_id, conversation_id) where state = 'pending';
`
	},
	{
		version: 4,
		name: 'key events of conversations, and the team policy for rewraps',
		sql: `
-- Who re-invited a conversation, when the customer's key changed, who approved the rewrap
-- (docs/threat-model.md, "A signed-in agent"): shown in the thread.
create table conversation_events (
	event_id bigserial primary key,
	conversation_id text not null,
	kind text not null check (kind in ('reinvited', 'key_changed', 'rewrap_approved')),
	actor_account_id text references accounts (account_id) on delete set null,
	-- The actor's display name when it happened: the line stays readable after the account is gone.
	actor_name text,
	details jsonb not null default '{}',
	created_at timestamptz not null
);
create index conversation_events_by_conversation on conversation_events (conversation_id, event_id);

-- Who asked for the pending rewrap of a re-invitation: with the second-person policy, not its approver.
alter table conversations add column rewrap_requested_by text references accounts (account_id) on delete set null;

-- Team settings an admin chooses (docs/inbox-api.md, "Settings").
create table inbox_settings (
	name text primary key,
	value jsonb not null,
	updated_by text references accounts (account_id) on delete set null,
	updated_at timestamptz not null
);
`
	},
	{
		version: 5,
		name: 'login attempts counted in the database',
		sql: `
-- Each login attempt, counted before its password is verified (auth/login-throttle.ts): a failure
-- until it succeeds, shared by every inbox process. Rows older than the window are pruned.
create table login_attempts (
	attempt_id bigserial primary key,
	username text not null,
	address text not null,
	started_at timestamptz not null,
	finished_at timestamptz,
	succeeded boolean
);
create index login_attempts_by_username on login_attempts (username, started_at);
create index login_attempts_by_address on login_attempts (address, started_at);
create index login_attempts_by_start on login_attempts (started_at);
`
	},
	{
		version: 6,
		name: 'the tamper-evident audit log',
		sql: `
-- Security-relevant actions, each entry carrying the hash of the one before (src/lib/audit/chain.ts).
-- Appended under an advisory lock, never updated or deleted by the inbox.
create table audit_log (
	seq bigint primary key,
	at text not null,
	actor_id text,
	actor_name text,
	action text not null,
	target text,
	details jsonb not null,
	prev_hash text not null,
	hash text not null
);
create index audit_log_by_action on audit_log (action, seq);
create index audit_log_by_actor on audit_log (actor_id, seq);
`
	},
	{
		version: 7,
		name: 'fencing tokens on webhook leases',
		sql: `
-- The token of the lease that holds a pending event (src/lib/server/db/webhook-events.ts): marking the
-- event needs it, so a process whose lease ran out cannot mark what another process now holds.
alter table webhook_events add column lease_token text;
`
	},
	{
		version: 8,
		name: 'grant jobs owned under a lease',
		sql: `
-- The process working on a running grant job holds it under a lease (src/lib/server/db/grant-jobs.ts):
-- renewed per batch, its token needed to record progress, taken over by another process once it ran out.
alter table grant_jobs add column lease_token text;
alter table grant_jobs add column locked_until timestamptz;
`
	},
	{
		version: 9,
		name: 'indexes for retention',
		sql: `
-- Retention deletes in batches by these columns (src/lib/server/db/retention.ts); without an index each
-- batch would scan the whole table.
create index live_events_by_created on live_events (created_at);
create index outgoing_operations_by_created on outgoing_operations (created_at);
create index webhook_events_by_processed on webhook_events (processed_at) where state <> 'pending';
create index invite_secrets_by_expiry on invite_secrets (expires_at);
`
	},
	{
		version: 10,
		name: 'the webhook secret rotation shared by every process',
		sql: `
-- The rotated webhook secrets (src/lib/server/keys/webhook-secrets.ts), sealed with a key derived from
-- the environment's SERVICE_WEBHOOK_SECRET: one row, announced with NOTIFY when it changes.
create table webhook_secret_state (
	id integer primary key check (id = 1),
	sealed text not null,
	environment_secret_hash text not null,
	rotated_at timestamptz not null
);
`
	},
	{
		version: 11,
		name: 'the company key every process uses',
		sql: `
-- The current company key's version and fingerprint (src/lib/server/keys/company-key-state.ts): a
-- process whose key files differ refuses to start.
create table company_key_state (
	id integer primary key check (id = 1),
	key_version integer not null,
	fingerprint text not null,
	updated_at timestamptz not null
);
`
	},
	{
		version: 12,
		name: 'who sent each message',
		sql: `
-- The agent who sent a message through the proxy (src/lib/server/db/message-authors.ts), recorded
-- before the request goes to the service, by the envelope's clientMessageId. The first account to use
-- a clientMessageId keeps it. The name stays readable after the account is gone.
create table message_authors (
	conversation_id text not null,
	client_message_id text not null,
	account_id text references accounts (account_id) on delete set null,
	author_name text not null,
	created_at timestamptz not null,
	primary key (conversation_id, client_message_id)
);
`
	},
	{
		version: 13,
		name: 'assignment and the team activity of conversations',
		sql: `
-- The agent who owns a conversation (src/lib/server/conversations/assignment.ts).
alter table conversations add column assignee_id text references accounts (account_id) on delete set null;
create index conversations_by_assignee on conversations (assignee_id);

-- What the team did to a conversation (assigned, unassigned, resolved, reopened, snoozed), shown in the
-- thread. Names are kept as they were, so a line stays readable after its account is gone.
create table conversation_activity (
	activity_id bigserial primary key,
	conversation_id text not null,
	kind text not null,
	actor_account_id text references accounts (account_id) on delete set null,
	actor_name text,
	details jsonb not null default '{}',
	created_at timestamptz not null
);
create index conversation_activity_by_conversation on conversation_activity (conversation_id, activity_id);
`
	},
	{
		version: 14,
		name: 'private notes, as ciphertext',
		sql: `
-- Notes agents write for each other (docs/private-records.md): in1 envelopes encrypted in the agents'
-- workers under the conversation key, which this database never holds. author_id is part of the
-- note's AD, so it is kept as written, also once the account is deleted.
create table conversation_notes (
	note_id text primary key,
	conversation_id text not null,
	author_id text not null,
	author_name text not null,
	envelope jsonb not null,
	created_at timestamptz not null
);
create index conversation_notes_by_conversation on conversation_notes (conversation_id, created_at, note_id);
`
	},
	{
		version: 15,
		name: 'customer profiles, as ciphertext',
		sql: `
-- The customer's name and contact notes (docs/private-records.md, kind profile): one in1 envelope per
-- conversation, replaced as a whole; version counts the saves so two agents do not overwrite each other.
create table customer_profiles (
	conversation_id text primary key,
	author_id text not null,
	author_name text not null,
	envelope jsonb not null,
	version integer not null,
	updated_at timestamptz not null
);
`
	},
	{
		version: 16,
		name: 'the team state of conversations: open, resolved, snoozed',
		sql: `
-- Whether the team still has work on a conversation (src/lib/server/conversations/lifecycle.ts), apart
-- from the service's status: a customer's new message opens it again; a snooze ends by itself.
alter table conversations add column team_state text not null default 'open' check (team_state in ('open', 'resolved', 'snoozed'));
alter table conversations add column snoozed_until timestamptz;
create index conversations_snoozed on conversations (snoozed_until) where team_state = 'snoozed';
`
	},
	{
		version: 17,
		name: 'labels and canned replies',
		sql: `
-- Coloured labels admins manage and agents put on conversations (src/lib/server/conversations/labels.ts).
create table labels (
	label_id text primary key,
	name text not null unique,
	color text not null,
	created_at timestamptz not null
);
create table conversation_labels (
	conversation_id text not null,
	label_id text not null references labels (label_id) on delete cascade,
	added_at timestamptz not null,
	primary key (conversation_id, label_id)
);
create index conversation_labels_by_label on conversation_labels (label_id);

-- Canned replies (src/lib/server/canned-replies.ts): the team's (owner_id null, made by admins) and each
-- agent's own; a shortcut is unique per owner.
create table canned_replies (
	reply_id text primary key,
	owner_id text references accounts (account_id) on delete cascade,
	shortcut text not null,
	body text not null,
	updated_at timestamptz not null
);
create unique index canned_replies_shortcut on canned_replies (coalesce(owner_id, ''), shortcut);
`
	},
	{
		version: 18,
		name: 'pending invitations shown again',
		sql: `
-- What it takes to show a pending invitation's link again (src/lib/server/conversations/invitations.ts):
-- the service's URL and short code, kept with the secret until the binding is checked, the invitation
-- expires or someone revokes it.
alter table invite_secrets add column invite_url text;
alter table invite_secrets add column short_code text;
`
	},
	{
		version: 19,
		name: 'profiles written with an invitation',
		sql: `
-- A customer's profile written with the invitation, before the conversation key exists: sealed in the
-- browser to the company key (docs/private-records.md), turned into an in1 profile when the conversation
-- starts, then deleted.
create table pending_profiles (
	conversation_id text primary key,
	author_id text not null,
	author_name text not null,
	sealed text not null,
	created_at timestamptz not null
);
`
	},
	{
		version: 20,
		name: 'conversations of the same customer, linked',
		sql: `
-- The team links conversations of one customer (a new phone, a second order): they share a group id
-- (src/lib/server/conversations/customer-links.ts), and each shows the others.
alter table conversations add column customer_group text;
create index conversations_by_customer_group on conversations (customer_group) where customer_group is not null;
`
	},
	{
		version: 21,
		name: 'webhook bodies without an id, deduplicated by their bytes',
		sql: `
-- The SHA-256 of a webhook body that carries no id (src/lib/server/db/webhook-events.ts): its event id
-- came from X-Service-Event-Id, which the signature does not cover, so the same signed body under
-- another header id is the same event (docs/contract-gaps.md §14). Null for a body with an id.
alter table webhook_events add column body_digest text;
create unique index webhook_events_body_digest on webhook_events (body_digest);
`
	},
	{
		version: 22,
		name: 'who may act: roles with their start, caps per account',
		sql: `
-- Since when an account has its role, and which admin gave it (null: the command line): an approval counts
-- only from someone who already had their role when it was asked for (src/lib/server/conversations/rewrap.ts).
alter table accounts add column role_since timestamptz;
update accounts set role_since = created_at;
alter table accounts alter column role_since set not null;
alter table accounts add column role_granted_by text;
-- When the rewrap waiting for a second person was asked for: the re-invitation's time.
alter table conversations add column rewrap_requested_at timestamptz;

-- What each account spends of what the team shares (src/lib/server/usage/caps.ts): uses per fixed window,
-- and the live streams open now, each refreshed by its heartbeat.
create table usage_windows (
	account_id text not null,
	kind text not null,
	window_start timestamptz not null,
	used integer not null,
	primary key (account_id, kind, window_start)
);
create index usage_windows_by_start on usage_windows (window_start);
create table live_streams (
	stream_id text primary key,
	account_id text not null,
	session_hash text not null,
	opened_at timestamptz not null,
	seen_at timestamptz not null
);
create index live_streams_by_account on live_streams (account_id, seen_at);
create index live_streams_by_seen on live_streams (seen_at);
`
	},
	{
		version: 23,
		name: 'the request that stored each webhook event',
		sql: `
-- The X-Request-Id of the delivery that stored the event (src/lib/server/request-context.ts): the lines its
-- processing logs carry it (docs/operations.md "Logs"). Null for events stored before.
alter table webhook_events add column request_id text;
`
	},
	{
		version: 24,
		name: 'unlock once per browser session',
		sql: `
-- The server's half of the key a browser session keeps its unlocked agent key under
-- (src/lib/server/auth/unlock-share.ts): given back to the session's tabs while one of them is open,
-- dropped at lock, sign-out, or once no tab has kept a live stream for a while (the browser closed).
alter table sessions add column unlock_share bytea;
alter table sessions add column unlock_share_at timestamptz;
-- When the session's last live stream closed (open ones are in live_streams).
alter table sessions add column tabs_closed_at timestamptz;
`
	},
	{
		version: 25,
		name: 'unread counts from an index',
		sql: `
-- A row's unread count (db/conversations.ts) counts the customer's messages after the account's read
-- mark: this index answers it from the messages after the mark alone, so a list page costs the same at
-- any history size (docs/inbox-api.md §4 "Cost of a page").
create index conversation_messages_unread on conversation_messages (conversation_id, seq) where sender_type = 'user';
`
	},
	{
		version: 26,
		name: 'agent availability and round-robin turns',
		sql: `
-- What an agent says of themselves (conversations/availability.ts): away by choice, or idle (the page's
-- idle lock); offline is no fresh live stream. The turn of each agent's last automatic assignment orders
-- the round-robin (conversations/round-robin.ts), shared by every process: a sequence, not a time, so
-- two assignments in the same millisecond still take turns.
create table agent_availability (
	account_id text primary key references accounts (account_id) on delete cascade,
	away_by_choice boolean not null default false,
	idle boolean not null default false,
	changed_at timestamptz not null,
	last_turn bigint
);
create sequence round_robin_turns;
-- Conversations waiting for an automatic assignee, found without reading the others.
create index conversations_unassigned_open on conversations (last_activity_at) where assignee_id is null and team_state = 'open';
`
	},
	{
		version: 27,
		name: 'who each private note mentions, and whether they saw it',
		sql: `
-- The accounts a private note mentions (src/lib/server/conversations/mentions.ts): ids the writer's browser
-- sends beside the sealed note, each checked to be someone who can read the conversation; the note's
-- words stay ciphertext. read_at: when the mentioned account opened the conversation after it (null: unread).
create table note_mentions (
	note_id text not null references conversation_notes (note_id) on delete cascade,
	account_id text not null references accounts (account_id) on delete cascade,
	conversation_id text not null,
	created_at timestamptz not null,
	read_at timestamptz,
	primary key (note_id, account_id)
);
create index note_mentions_by_account on note_mentions (account_id, conversation_id);
`
	},
	{
		version: 28,
		name: 'indexes for the team reports',
		sql: `
-- The team reports (src/lib/server/reports/, docs/reports.md) read a range of time from indexes alone:
-- the customer's messages by time, the replies agents sent by time, each conversation's first customer
-- message and first reply after it, activity lines of one kind by time, conversations by when the inbox
-- learnt of them.
create index conversation_messages_in_by_time on conversation_messages (created_at) include (conversation_id) where sender_type = 'user';
create index conversation_messages_by_side on conversation_messages (conversation_id, sender_type, created_at);
create index message_authors_by_time on message_authors (created_at) include (conversation_id, account_id);
create index message_authors_by_conversation on message_authors (conversation_id, created_at) include (account_id);
create index conversation_activity_by_kind on conversation_activity (kind, created_at);
create index conversations_by_created on conversations (created_at);
`
	},
	{
		version: 29,
		name: 'time online',
		sql: `
-- Time online (docs/reports.md "Time online"): each stretch an account was online — a live stream of
-- theirs said so at open and at each heartbeat while they were neither away nor idle — from its start to
-- the last heartbeat that found them so. A heartbeat after a longer pause starts a new stretch.
create table agent_online_spans (
	account_id text not null references accounts (account_id) on delete cascade,
	started_at timestamptz not null,
	last_seen_at timestamptz not null,
	primary key (account_id, started_at)
);
create index agent_online_spans_by_time on agent_online_spans (last_seen_at) include (account_id, started_at);
`
	},
	{
		version: 30,
		name: "each conversation's first response, kept as it is stored",
		sql: `
-- Each conversation's first response (docs/reports.md "First responses, kept as they are stored";
-- db/response-facts.ts): its first customer message ever, and the first reply an agent sent at or after
-- it (its time and author), kept in the transaction that stores a customer message or records a reply's
-- author. A row without a customer
-- message holds nothing yet: the row is what concurrent writers of the conversation take turns on.
create table conversation_response_facts (
	conversation_id text primary key,
	first_in_at timestamptz,
	first_reply_at timestamptz,
	first_reply_account_id text references accounts (account_id) on delete set null
);
create index conversation_response_facts_by_reply on conversation_response_facts (first_reply_at)
	include (conversation_id, first_in_at, first_reply_account_id) where first_reply_at is not null;
insert into conversation_response_facts (conversation_id, first_in_at, first_reply_at, first_reply_account_id)
select f.conversation_id, f.first_in_at, r.created_at, r.account_id
from (select conversation_id, min(created_at) as first_in_at from conversation_messages where sender_type = 'user' group by conversation_id) f
left join lateral (
	select a.created_at, a.account_id from message_authors a
	where a.conversation_id = f.conversation_id and a.created_at >= f.first_in_at order by a.created_at limit 1
) r on true;
`
	},
	{
		version: 31,
		name: 'the away reply',
		sql: `
-- The away reply (src/lib/server/conversations/away-reply.ts, docs/service-targets.md "Away reply"): one
-- row per conversation and away period, claimed once by whichever process gets there first, with the
-- clientMessageId of its message, settled as sent or dropped. It has no author line (message_authors):
-- the thread names it by this row, and no report counts it as a reply or a first response.
create table away_replies (
	conversation_id text not null,
	period text not null,
	client_message_id text not null,
	claimed_at timestamptz not null,
	next_attempt_at timestamptz not null,
	outcome text check (outcome in ('sent', 'dropped')),
	settled_at timestamptz,
	primary key (conversation_id, period)
);
create index away_replies_due on away_replies (next_attempt_at) where outcome is null;
create index away_replies_by_message on away_replies (conversation_id, client_message_id);
`
	},
	{
		version: 32,
		name: 'teams of agents',
		sql: `
-- Teams (docs/inbox-api.md §4 "Teams"): named groups of agents an admin keeps, e.g. "Billing". A
-- conversation may be given to one team, beside or instead of an agent; the team's view, counts and
-- reports follow the conversation's team. Deleting a team leaves its conversations without one.
create table teams (
	team_id text primary key,
	name text not null,
	created_at timestamptz not null
);
create unique index teams_by_name on teams (lower(name));
create table team_members (
	team_id text not null references teams (team_id) on delete cascade,
	account_id text not null references accounts (account_id) on delete cascade,
	primary key (team_id, account_id)
);
create index team_members_by_account on team_members (account_id);
alter table conversations add column team_id text references teams (team_id) on delete set null;
create index conversations_by_team on conversations (team_id) where team_id is not null;
`
	},
	{
		version: 33,
		name: 'unread counts and the list order from kept columns',
		sql: `
-- A list page costs the same at any history size (docs/inbox-api.md §4 "Cost of a page"). Each
-- conversation's count of the customer's messages (with a seq) is kept by the statement that stores them,
-- and each read mark keeps how many of them it covers: a row's unread count is their difference. A
-- message stored late, below a mark, moves that mark's count too. A mark takes this row's lock before
-- it counts (db/messages.ts markReadUpTo), so a mark and a message stored at once never miss each other.
create table conversation_customer_messages (
	conversation_id text primary key,
	stored integer not null
);
alter table agent_reads add column customer_messages_read integer not null default 0;

create function keep_customer_message_counts() returns trigger language plpgsql as $$
begin
	insert into conversation_customer_messages as kept (conversation_id, stored)
	select conversation_id, count(*) from new_messages where sender_type = 'user' and seq is not null
	group by conversation_id order by conversation_id
	on conflict (conversation_id) do update set stored = kept.stored + excluded.stored;
	update agent_reads r set customer_messages_read = r.customer_messages_read + below.messages
	from (select mark.account_id, mark.conversation_id, count(*) as messages
	      from new_messages m join agent_reads mark on mark.conversation_id = m.conversation_id and m.seq <= mark.read_up_to_seq
	      where m.sender_type = 'user' group by mark.account_id, mark.conversation_id) below
	where r.account_id = below.account_id and r.conversation_id = below.conversation_id;
	return null;
end $$;
create trigger conversation_messages_counted after insert on conversation_messages
	referencing new table as new_messages for each statement execute function keep_customer_message_counts();

insert into conversation_customer_messages (conversation_id, stored)
select conversation_id, count(*) from conversation_messages where sender_type = 'user' and seq is not null group by conversation_id;
update agent_reads r set customer_messages_read = (
	select count(*) from conversation_messages m where m.conversation_id = r.conversation_id and m.sender_type = 'user' and m.seq <= r.read_up_to_seq
);

-- The list's order (last activity, then id, both descending) and its cursor, read backwards from one index.
drop index conversations_activity;
create index conversations_by_activity on conversations (last_activity_at, conversation_id);
`
	}
];

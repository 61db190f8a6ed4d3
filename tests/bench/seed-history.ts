/**
 * A year of an inbox's history for the benches (docs/reports.md "Cost", docs/inbox-api.md §4 "Cost of a
 * page"): conversations of 20 agents with their messages, authors, activity and labels, seeded by
 * generate_series in a few statements per chunk, on either store.
 */
import type { Database } from '../../src/lib/server/db/database';

export const AGENTS = 20;
export const YEAR_START = '2025-12-01T00:00:00Z';
/** Messages per statement: each stays within the store's statement timeout. */
const CHUNK_MESSAGES = 100_000;

/** The team: 20 agents and 8 labels ($1 the year's start). */
const TEAM = [
	`insert into accounts (account_id, username, display_name, role, password_hash, created_at, role_since)
	 select 'acc_bench_' || n, 'agent' || n, 'Agent ' || n, 'agent', 'x', $1::timestamptz, $1::timestamptz from generate_series(1, ${AGENTS}) n`,
	`insert into labels (label_id, name, color, created_at) select 'lbl_bench_' || n, 'label ' || n, 'gray', $1::timestamptz from generate_series(1, 8) n`
];

/** The conversations numbered [$1, $2) (of $4, one every ~5 minutes of the year from $3). */
const CHUNK_CONVERSATIONS = `generate_series($1::int, $2::int - 1) n join conversations c on c.conversation_id = 'conv_' || n`;

/**
 * A year of conversations: `messagesEach` messages each, the customer's and the assignee's answers in
 * turn (an envelope of 272 random-looking bytes, as a short message has), nine in ten resolved, one in
 * ten of those reopened by the customer and resolved again, a label on one in three.
 */
function chunk(messagesEach: number): string[] {
	return [
		`insert into conversations (conversation_id, status, created_at, last_activity_at, updated_at, team_state, assignee_id)
	 select 'conv_' || n, 'active', t, t, t, case when n % 10 = 0 then 'open' else 'resolved' end, 'acc_bench_' || (n % ${AGENTS} + 1)
	 from generate_series($1::int, $2::int - 1) n, lateral (select $3::timestamptz + (n::float8 / $4::int) * interval '365 days' as t) c`,
		`insert into conversation_messages (message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at)
	 select 'msg_' || n || '_' || j, c.conversation_id, j + 1, case when j % 2 = 0 then 'user' else 'company' end, 'text',
		jsonb_build_object('v', 1, 'scheme', 'sc1', 'keyVersion', 1, 'clientMessageId', 'cm_' || n || '_' || j,
			'nonce', substr(repeat(md5(n::text), 2), 1, 32), 'ciphertext', repeat(md5(n::text || j::text), 11)),
		null, c.created_at + j * (n % 7 + 1) * interval '13 minutes'
	 from ${CHUNK_CONVERSATIONS}, generate_series(0, ${messagesEach - 1}) j`,
		`insert into message_authors (conversation_id, client_message_id, account_id, author_name, created_at)
	 select c.conversation_id, 'cm_' || n || '_' || j, c.assignee_id, 'Agent', c.created_at + j * (n % 7 + 1) * interval '13 minutes'
	 from ${CHUNK_CONVERSATIONS}, generate_series(1, ${messagesEach - 1}, 2) j`,
		`insert into conversation_activity (conversation_id, kind, actor_account_id, actor_name, details, created_at)
	 select c.conversation_id, l.kind, case when l.kind = 'reopened' then null else c.assignee_id end,
		case when l.kind = 'reopened' then null else 'Agent' end, '{}', c.created_at + l.after
	 from ${CHUNK_CONVERSATIONS} cross join lateral (values ('assigned', interval '10 minutes'), ('resolved', interval '3 hours'),
		('reopened', interval '30 hours'), ('resolved', interval '50 hours')) l (kind, after)
	 where (c.team_state = 'resolved' or l.kind = 'assigned') and (l.after < interval '30 hours' or n % 100 < 10)`,
		`insert into conversation_labels (conversation_id, label_id, added_at)
	 select c.conversation_id, 'lbl_bench_' || (n % 8 + 1), c.created_at from ${CHUNK_CONVERSATIONS} where n % 3 = 0`
	];
}

/** Seeds `conversations` conversations of `messagesEach` messages; returns the time it took in ms. */
export async function seedHistory(db: Database, conversations: number, messagesEach: number): Promise<number> {
	const started = performance.now();
	const start = new Date(YEAR_START);
	const statements = chunk(messagesEach);
	const chunkSize = Math.max(1, Math.floor(CHUNK_MESSAGES / messagesEach));
	for (const sql of TEAM) await db.query(sql, [start]);
	for (let low = 1; low <= conversations; low += chunkSize) {
		const high = Math.min(low + chunkSize, conversations + 1);
		for (const sql of statements) await db.query(sql, sql.includes('$4') ? [low, high, start, conversations] : [low, high]);
	}
	return performance.now() - started;
}

/** The median of `runs` timed calls after one untimed. */
export async function timedMedian(work: () => Promise<unknown>, runs: number): Promise<number> {
	await work();
	const times: number[] = [];
	for (let run = 0; run < runs; run++) {
		const started = performance.now();
		await work();
		times.push(performance.now() - started);
	}
	return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

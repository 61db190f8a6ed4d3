import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { createAccount, registerAgentKey, type Account } from '../db/accounts';
import type { Database } from '../db/database';
import { ensureConversation } from '../db/conversations';
import { storeAgentWraps, storeMessage } from '../db/messages';
import { storeRoster } from '../db/rosters';
import { updateSettings } from '../db/settings';
import { assignConversation } from './assignment';
import { availabilities, setAvailability } from './availability';
import { assignWaiting } from './round-robin';
import { createTeam, setConversationTeam } from './teams';

const now = new Date('2026-11-27T10:00:00Z');
const wrap = { keyVersion: 1, sealed: 'A'.repeat(120) };

interface Team {
	db: Database;
	admin: Account;
	agents: Record<'ada' | 'bob' | 'cy' | 'dan' | 'eve', Account>;
}

/** Five agents of the roster: ada, bob and cy with a tab open, dan with none, eve away by choice. */
async function team(db: Database): Promise<Team> {
	const admin = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, now);
	const agents = {} as Team['agents'];
	for (const name of ['ada', 'bob', 'cy', 'dan', 'eve'] as const) {
		const created = await createAccount(db, { username: name, displayName: name.toUpperCase(), role: 'agent', passwordHash: 'h' }, now);
		agents[name] = await registerAgentKey(
			db,
			{ accountId: created.accountId, agentKeyId: `agk_${name}0000`, publicKey: `PK_${name}`, replace: false },
			now
		);
		if (name !== 'dan')
			await db.query("insert into live_streams (stream_id, account_id, session_hash, opened_at, seen_at) values ($1, $2, 'h', $3, $3)", [
				`str_${name}`,
				created.accountId,
				now
			]);
	}
	await setAvailability(db, agents.eve.accountId, { away: true }, now);
	await storeRoster(db, {
		rosterVersion: 1,
		issuedAt: '2026-11-27T09:00:00Z',
		agents: Object.keys(agents).map((name) => ({ agentKeyId: `agk_${name}0000`, publicKey: `PK_${name}` })),
		signature: 'S',
		uploadedBy: null,
		uploadedAt: now
	});
	return { db, admin, agents };
}

/** A conversation every agent can read (or only `readers`), where the customer wrote at `at`. */
async function customerWrote(db: Database, conversationId: string, at: Date, readers = ['ada', 'bob', 'cy', 'dan', 'eve']) {
	await ensureConversation(db, conversationId, 'active', at);
	await storeAgentWraps(
		db,
		conversationId,
		readers.map((name) => ({ agentKeyId: `agk_${name}0000`, rosterVersion: 1, wrap })),
		at
	);
	const seq = (await db.query(`select 1 from conversation_messages where conversation_id = $1`, [conversationId])).length + 1;
	await storeMessage(
		db,
		{
			messageId: `msg_${conversationId}_${seq}`,
			conversationId,
			seq,
			senderType: 'user',
			contentType: 'text',
			encryption: { ciphertext: 'x' } as never,
			attachment: null,
			createdAt: at.toISOString()
		},
		null
	);
}

const assignees = async (db: Database) =>
	Object.fromEntries(
		(
			await db.query<{ conversation_id: string; name: string | null }>(
				`select c.conversation_id, a.username as name from conversations c left join accounts a on a.account_id = c.assignee_id order by 1`
			)
		).map((row) => [row.conversation_id, row.name])
	);

describe.each(BACKENDS)('round-robin assignment on %s (docs/inbox-api.md §4 "Assignment")', (backend) => {
	const databases = useDatabases(backend);

	it('says who is online, away or offline', async () => {
		const { db, agents, admin } = await team(await databases.open());
		const seen = await availabilities(db, now);
		expect([agents.ada, agents.dan, agents.eve, admin].map((account) => seen.get(account.accountId))).toEqual([
			'online',
			'offline',
			'away',
			'offline'
		]);
		// idle-locked is away; back from it, online; a stream not seen for a while is a closed tab
		await setAvailability(db, agents.ada.accountId, { idle: true }, now);
		expect((await availabilities(db, now)).get(agents.ada.accountId)).toBe('away');
		await setAvailability(db, agents.ada.accountId, { idle: false }, now);
		expect((await availabilities(db, now)).get(agents.ada.accountId)).toBe('online');
		expect((await availabilities(db, new Date(now.getTime() + 60_000))).get(agents.ada.accountId)).toBe('offline');
	});

	it('does nothing unless the team chose it', async () => {
		const { db } = await team(await databases.open());
		await customerWrote(db, 'conv_1', now);
		expect(await assignWaiting(db, now)).toBe(0);
		expect(await assignees(db)).toEqual({ conv_1: null });
	});

	it('takes online agents with access in turn, never the offline or away ones, and says why in the activity', async () => {
		const { db, admin } = await team(await databases.open());
		await updateSettings(db, { roundRobin: true }, admin, now);
		for (let n = 1; n <= 6; n++) await customerWrote(db, `conv_${n}`, new Date(now.getTime() + n * 1000));
		// cy cannot read conv_7: it goes to the next online agent whose turn it is
		await customerWrote(db, 'conv_7', new Date(now.getTime() + 7000), ['ada', 'bob', 'dan']);
		expect(await assignWaiting(db, now)).toBe(7);
		expect(await assignees(db)).toEqual({
			conv_1: 'ada',
			conv_2: 'bob',
			conv_3: 'cy',
			conv_4: 'ada',
			conv_5: 'bob',
			conv_6: 'cy',
			conv_7: 'ada'
		});
		const [line] = await db.query<{ kind: string; actor_name: string | null; details: object }>(
			"select kind, actor_name, details from conversation_activity where conversation_id = 'conv_1'"
		);
		expect(line).toEqual({ kind: 'assigned', actor_name: null, details: { assigneeName: 'ADA', automatic: true, rule: 'round_robin' } });
		// nothing left waiting: a second run assigns nothing
		expect(await assignWaiting(db, now)).toBe(0);
	});

	it('keeps to the cap, and leaves alone what an agent unassigned until the customer writes again', async () => {
		const { db, admin, agents } = await team(await databases.open());
		await updateSettings(db, { roundRobin: true, roundRobinCap: 1 }, admin, now);
		for (let n = 1; n <= 4; n++) await customerWrote(db, `conv_${n}`, new Date(now.getTime() + n * 1000));
		expect(await assignWaiting(db, now)).toBe(3);
		expect(await assignees(db)).toEqual({ conv_1: 'ada', conv_2: 'bob', conv_3: 'cy', conv_4: null });
		// ada lets conv_1 go: it stays unassigned, and conv_4 goes to her, now below the cap
		const later = new Date(now.getTime() + 10_000);
		await assignConversation({ db, now: () => later.getTime() }, agents.ada, 'conv_1', null);
		expect(await assignWaiting(db, later)).toBe(1);
		expect((await assignees(db)).conv_1).toBeNull();
		expect((await assignees(db)).conv_4).toBe('ada');
		// the customer of conv_1 writes again: it waits for whoever is below the cap (nobody yet)
		await customerWrote(db, 'conv_1', new Date(later.getTime() + 1000));
		expect(await assignWaiting(db, later)).toBe(0);
		await updateSettings(db, { roundRobinCap: 0 }, admin, later);
		expect(await assignWaiting(db, later)).toBe(1);
		expect((await assignees(db)).conv_1).toBe('bob');
	});

	it('gives a conversation of a team to the team’s online members in turn, and names the team in the activity (§4 "Teams")', async () => {
		const { db, admin, agents } = await team(await databases.open());
		await updateSettings(db, { roundRobin: true }, admin, now);
		const deps = { db, now: () => now.getTime() };
		// dan is offline and eve away: of the team, bob and cy take turns
		const billing = await createTeam(deps, admin, {
			name: 'Billing',
			memberIds: [agents.bob, agents.cy, agents.dan, agents.eve].map((agent) => agent.accountId)
		});
		for (let n = 1; n <= 4; n++) {
			await ensureConversation(db, `conv_${n}`, 'active', now);
			await setConversationTeam(deps, admin, `conv_${n}`, billing.teamId);
			await customerWrote(db, `conv_${n}`, new Date(now.getTime() + n * 1000));
		}
		await customerWrote(db, 'conv_5', new Date(now.getTime() + 5000));
		expect(await assignWaiting(db, now)).toBe(5);
		expect(await assignees(db)).toEqual({ conv_1: 'bob', conv_2: 'cy', conv_3: 'bob', conv_4: 'cy', conv_5: 'ada' });
		const [line] = await db.query<{ details: object }>(
			"select details from conversation_activity where conversation_id = 'conv_1' and kind = 'assigned'"
		);
		expect(line.details).toEqual({ assigneeName: 'BOB', automatic: true, rule: 'round_robin', teamName: 'Billing' });
		// a team whose members are all away or offline leaves its conversation waiting
		const night = await createTeam(deps, admin, { name: 'Night', memberIds: [agents.dan.accountId, agents.eve.accountId] });
		await ensureConversation(db, 'conv_6', 'active', now);
		await setConversationTeam(deps, admin, 'conv_6', night.teamId);
		await customerWrote(db, 'conv_6', new Date(now.getTime() + 6000));
		expect(await assignWaiting(db, now)).toBe(0);
		expect((await assignees(db)).conv_6).toBeNull();
	});

	it('decides each conversation once when several processes run it at the same time', async () => {
		const { db, admin } = await team(await databases.open());
		await updateSettings(db, { roundRobin: true }, admin, now);
		for (let n = 1; n <= 30; n++) await customerWrote(db, `conv_${String(n).padStart(2, '0')}`, new Date(now.getTime() + n * 1000));
		// three runs at once: on PostgreSQL each on its own connection of the pool, as three processes would be
		const runs = await Promise.all([1, 2, 3].map(() => assignWaiting(db, now)));
		expect(runs.reduce((a, b) => a + b, 0)).toBe(30);
		const assigned = Object.values(await assignees(db));
		expect(assigned.filter((name) => name === null)).toEqual([]);
		const lines = await db.query<{ n: number }>("select count(*)::int as n from conversation_activity where kind = 'assigned'");
		expect(lines[0].n).toBe(30);
		// in turn, strictly: ten each, whichever run took which
		expect(['ada', 'bob', 'cy'].map((name) => assigned.filter((n) => n === name).length)).toEqual([10, 10, 10]);
	});
});

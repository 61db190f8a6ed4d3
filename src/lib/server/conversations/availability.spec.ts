import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { createAccount, type Account } from '../db/accounts';
import type { Database } from '../db/database';
import { buildTeamReport } from '../reports/report';
import { ONLINE_GAP_MS, recordOnline, setAvailability } from './availability';

const start = Date.parse('2026-03-01T22:50:00Z');
const at = (seconds: number) => new Date(start + seconds * 1000);

async function spans(db: Database, account: Account): Promise<[number, number][]> {
	const rows = await db.query<{ started_at: Date; last_seen_at: Date }>(
		'select started_at, last_seen_at from agent_online_spans where account_id = $1 order by started_at',
		[account.accountId]
	);
	return rows.map((row) => [(new Date(row.started_at).getTime() - start) / 1000, (new Date(row.last_seen_at).getTime() - start) / 1000]);
}

describe.each(BACKENDS)('time online on %s (docs/reports.md "Time online")', (backend) => {
	const databases = useDatabases(backend);

	async function agents(db: Database): Promise<Account[]> {
		return Promise.all(
			['ada', 'bob'].map((name) =>
				createAccount(db, { username: name, displayName: name.toUpperCase(), role: 'agent', passwordHash: 'h' }, at(0))
			)
		);
	}

	it('runs a stretch on from heartbeat to heartbeat, starts another after a pause, and counts nothing while away', async () => {
		const db = await databases.open();
		const [ada] = await agents(db);
		for (const seconds of [0, 15, 30, 45]) await recordOnline(db, ada.accountId, at(seconds));
		expect(await spans(db, ada)).toEqual([[0, 45]]);
		// a heartbeat just within the pause runs on; one after a longer pause starts anew
		await recordOnline(db, ada.accountId, at(45 + ONLINE_GAP_MS / 1000));
		const resumed = 45 + ONLINE_GAP_MS / 1000 + 1 + ONLINE_GAP_MS / 1000;
		await recordOnline(db, ada.accountId, at(resumed));
		expect(await spans(db, ada)).toEqual([
			[0, 45 + ONLINE_GAP_MS / 1000],
			[resumed, resumed]
		]);
		// away by choice, then idle-locked: the heartbeats of the open tab say nothing
		await setAvailability(db, ada.accountId, { away: true }, at(resumed + 1));
		await recordOnline(db, ada.accountId, at(resumed + 15));
		await setAvailability(db, ada.accountId, { away: false, idle: true }, at(resumed + 20));
		await recordOnline(db, ada.accountId, at(resumed + 30));
		expect((await spans(db, ada)).at(-1)).toEqual([resumed, resumed]);
		await setAvailability(db, ada.accountId, { idle: false }, at(resumed + 200));
		await recordOnline(db, ada.accountId, at(resumed + 210));
		expect(await spans(db, ada)).toHaveLength(3);
	});

	it('keeps one stretch when the heartbeats of many tabs and processes arrive at once', async () => {
		const db = await databases.open();
		const [ada] = await agents(db);
		for (const seconds of [0, 15, 30]) await Promise.all(Array.from({ length: 6 }, () => recordOnline(db, ada.accountId, at(seconds))));
		await Promise.all([recordOnline(db, ada.accountId, at(44)), recordOnline(db, ada.accountId, at(40))]);
		expect(await spans(db, ada)).toEqual([[0, 44]]);
		// after a pause, six heartbeats a second apart that each would start a stretch: one does, the others run it on
		await Promise.all(Array.from({ length: 6 }, (_, index) => recordOnline(db, ada.accountId, at(200 + index))));
		const [, resumed] = await spans(db, ada);
		expect(await spans(db, ada)).toHaveLength(2);
		expect(resumed[1]).toBe(205);
	});

	it('reports each account’s time online within the range, cut at its bounds; an agent sees their own', async () => {
		const db = await databases.open();
		const [ada, bob] = await agents(db);
		// ada online from 22:50 to 23:20 UTC; the range starts at midnight in Berlin (23:00 UTC)
		for (let seconds = 0; seconds <= 1800; seconds += 15) await recordOnline(db, ada.accountId, at(seconds));
		// bob online 10 min the next day, twice, with a pause between
		for (const offset of [3600, 3600 + 3600])
			for (let seconds = 0; seconds <= 300; seconds += 15) await recordOnline(db, bob.accountId, at(offset + seconds));
		const range = { from: '2026-03-02', to: '2026-03-03', timeZone: 'Europe/Berlin' };
		const team = await buildTeamReport(db, range, { agentId: null });
		expect(team.timeOnline).toEqual([
			{ key: ada.accountId, name: 'ADA', seconds: 1200 },
			{ key: bob.accountId, name: 'BOB', seconds: 600 }
		]);
		expect((await buildTeamReport(db, range, { agentId: bob.accountId })).timeOnline).toEqual([
			{ key: bob.accountId, name: 'BOB', seconds: 600 }
		]);
		// the day before: ada's first ten minutes only
		const before = await buildTeamReport(db, { ...range, from: '2026-03-01', to: '2026-03-02' }, { agentId: null });
		expect(before.timeOnline).toEqual([{ key: ada.accountId, name: 'ADA', seconds: 600 }]);
	});
});

import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { ensureConversation } from '../db/conversations';
import type { Database } from '../db/database';
import type { Logger } from '../log';
import { SnoozeAlarm } from './snooze-alarm';

const quiet: Logger = { info() {}, warn() {}, error() {} };

/** The database, counting the alarm's looks: each look ends by reading the next snooze's end. */
function countingLooks(db: Database): { db: Database; looks(): number } {
	let looks = 0;
	const counted: Database = Object.create(db);
	counted.query = (sql, params) => {
		if (sql.includes('min(snoozed_until)')) looks++;
		return db.query(sql, params);
	};
	return { db: counted, looks: () => looks };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(BACKENDS)('snoozes end on time on %s (docs/inbox-api.md §4 "Lifecycle")', (backend) => {
	const databases = useDatabases(backend);

	it('wakes a snooze at its end, not at the next look, whether set here or found in the database', async () => {
		const db = await databases.open();
		const start = Date.now();
		for (const id of ['conv_setHere', 'conv_setElsewhere', 'conv_later']) await ensureConversation(db, id, 'active', new Date(start));
		const snooze = (id: string, until: number) =>
			db.query("update conversations set team_state = 'snoozed', snoozed_until = $2 where conversation_id = $1", [id, new Date(until)]);
		const stateOf = async (id: string) =>
			(await db.query<{ team_state: string }>('select team_state from conversations where conversation_id = $1', [id]))[0].team_state;
		// set through another process before this one started: found at the first look
		await snooze('conv_setElsewhere', start + 600);
		await snooze('conv_later', start + 3_600_000);
		// the next look is an hour away: only the timers can wake them
		const alarm = new SnoozeAlarm({ db, log: quiet, now: Date.now, checkEveryMs: 3_600_000 });
		alarm.start();
		try {
			await expect.poll(() => stateOf('conv_setElsewhere'), { timeout: 10_000 }).toBe('open');
			const setHere = Date.now() + 300;
			await snooze('conv_setHere', setHere);
			alarm.snoozedUntil(new Date(setHere));
			await expect.poll(() => stateOf('conv_setHere'), { timeout: 10_000 }).toBe('open');
			expect(Date.now()).toBeGreaterThanOrEqual(setHere);
			expect(await stateOf('conv_later')).toBe('snoozed');
		} finally {
			alarm.stop();
		}
	});

	it('sets no timer once stopped', async () => {
		const db = await databases.open();
		await ensureConversation(db, 'conv_1', 'active', new Date());
		const alarm = new SnoozeAlarm({ db, log: quiet, now: Date.now, checkEveryMs: 3_600_000 });
		alarm.stop();
		const until = new Date(Date.now() + 50);
		await db.query("update conversations set team_state = 'snoozed', snoozed_until = $1", [until]);
		alarm.snoozedUntil(until);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect((await db.query<{ team_state: string }>('select team_state from conversations'))[0].team_state).toBe('snoozed');
	});

	it('looks at the start and at each end, never again and again before an end nor with nothing snoozed', async () => {
		const db = await databases.open();
		const { db: counted, looks } = countingLooks(db);
		for (const id of ['conv_first', 'conv_second']) await ensureConversation(db, id, 'active', new Date());
		const snooze = (id: string, until: number) =>
			db.query("update conversations set team_state = 'snoozed', snoozed_until = $2 where conversation_id = $1", [id, new Date(until)]);
		await snooze('conv_second', Date.now() + 1_500);
		const alarm = new SnoozeAlarm({ db: counted, log: quiet, now: Date.now, checkEveryMs: 3_600_000 });
		alarm.start();
		try {
			// the first look sets a timer at the second end; a sooner end set here takes its place
			await expect.poll(looks, { timeout: 10_000 }).toBe(1);
			await pause(50);
			const first = Date.now() + 300;
			await snooze('conv_first', first);
			alarm.snoozedUntil(new Date(first));
			const snoozed = async () => (await db.query("select 1 from conversations where team_state = 'snoozed'")).length;
			await expect.poll(snoozed, { timeout: 10_000 }).toBe(0);
			await pause(300);
			// one look at the start, one at each end (fewer when a look comes late enough to find both ended)
			expect(looks()).toBeGreaterThanOrEqual(2);
			expect(looks()).toBeLessThanOrEqual(3);
		} finally {
			alarm.stop();
		}
	});

	it('keeps the timer at the sooner end when a later one is set after it', async () => {
		const db = await databases.open();
		for (const id of ['conv_sooner', 'conv_later']) await ensureConversation(db, id, 'active', new Date());
		const snooze = (id: string, until: number) =>
			db.query("update conversations set team_state = 'snoozed', snoozed_until = $2 where conversation_id = $1", [id, new Date(until)]);
		const stateOf = async (id: string) =>
			(await db.query<{ team_state: string }>('select team_state from conversations where conversation_id = $1', [id]))[0].team_state;
		const alarm = new SnoozeAlarm({ db, log: quiet, now: Date.now, checkEveryMs: 3_600_000 });
		alarm.start();
		try {
			await pause(100);
			const sooner = Date.now() + 300;
			const later = Date.now() + 8_000;
			await snooze('conv_sooner', sooner);
			alarm.snoozedUntil(new Date(sooner));
			await snooze('conv_later', later);
			alarm.snoozedUntil(new Date(later));
			// a timer moved to the later end would wake the sooner snooze only then
			await expect.poll(() => stateOf('conv_sooner'), { timeout: 5_000 }).toBe('open');
			expect(await stateOf('conv_later')).toBe('snoozed');
		} finally {
			alarm.stop();
		}
	});

	it('keeps no timer for a far end, which only a later look will reach', async () => {
		const db = await databases.open();
		const { db: counted, looks } = countingLooks(db);
		await ensureConversation(db, 'conv_1', 'active', new Date());
		await db.query("update conversations set team_state = 'snoozed', snoozed_until = $1", [new Date(Date.now() + 300 * 24 * 3600_000)]);
		// the default interval between looks, SNOOZE_CHECK_MS
		const alarm = new SnoozeAlarm({ db: counted, log: quiet, now: Date.now });
		alarm.start();
		try {
			await expect.poll(looks, { timeout: 10_000 }).toBe(1);
			await pause(400);
			expect(looks()).toBe(1);
		} finally {
			alarm.stop();
		}
	});

	it('looks every checkEveryMs until stopped, and a stopped alarm neither looks nor wakes', async () => {
		const db = await databases.open();
		const polling = countingLooks(db);
		const alarm = new SnoozeAlarm({ db: polling.db, log: quiet, now: Date.now, checkEveryMs: 150 });
		alarm.start();
		try {
			await expect.poll(polling.looks, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
		} finally {
			alarm.stop();
		}
		const stoppedAt = polling.looks();
		await pause(600);
		expect(polling.looks()).toBeLessThanOrEqual(stoppedAt + 1); // a look under way when it stopped

		// a timer set at the first look is cleared by stop()
		await ensureConversation(db, 'conv_1', 'active', new Date());
		await db.query("update conversations set team_state = 'snoozed', snoozed_until = $1", [new Date(Date.now() + 400)]);
		const timed = countingLooks(db);
		const second = new SnoozeAlarm({ db: timed.db, log: quiet, now: Date.now, checkEveryMs: 3_600_000 });
		second.start();
		await expect.poll(timed.looks, { timeout: 10_000 }).toBe(1);
		await pause(50);
		second.stop();
		await pause(800);
		expect(timed.looks()).toBe(1);
		expect((await db.query<{ team_state: string }>('select team_state from conversations'))[0].team_state).toBe('snoozed');
	});
});

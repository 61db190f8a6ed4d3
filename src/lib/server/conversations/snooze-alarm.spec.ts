import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { ensureConversation } from '../db/conversations';
import type { Logger } from '../log';
import { SnoozeAlarm } from './snooze-alarm';

const quiet: Logger = { info() {}, warn() {}, error() {} };

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
});

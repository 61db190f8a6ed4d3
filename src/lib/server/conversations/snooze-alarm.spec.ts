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
			await snooze('conv_setHere', start + 900);
			alarm.snoozedUntil(new Date(start + 900));
			await expect.poll(() => stateOf('conv_setElsewhere'), { timeout: 10_000 }).toBe('open');
			await expect.poll(() => stateOf('conv_setHere'), { timeout: 10_000 }).toBe('open');
			expect(Date.now() - start).toBeGreaterThanOrEqual(900);
			expect(await stateOf('conv_later')).toBe('snoozed');
		} finally {
			alarm.stop();
		}
	});
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../db/database';
import type { IncomingEvent } from '../db/webhook-events';
import { EventWriter, PGLITE_PACING, POSTGRES_PACING } from './event-writer';

/** A database whose INSERTs finish when the test says: each write's event ids, and its commit (new ids numbered in commit order). */
class HeldWrites implements Queryable {
	readonly writes: { ids: string[]; commit(): void; fail(error: Error): void }[] = [];
	private seq = 0;

	query<R extends object>(_sql: string, params: readonly unknown[] = []): Promise<R[]> {
		const ids = params[0] as string[];
		return new Promise((resolve, reject) => {
			this.writes.push({
				ids,
				commit: () => resolve([...new Set(ids)].map((id) => ({ event_id: id, seq: ++this.seq })) as R[]),
				fail: reject
			});
		});
	}

	async exec(): Promise<void> {}
}

const event = (id: string): IncomingEvent => ({
	eventId: id,
	eventType: 'message.created',
	deliveryId: null,
	attempt: null,
	rawBody: '{}',
	idInBody: true
});

/** Settles everything due by `ms` from now (timers and the promises they resolve). */
const after = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('EventWriter (contract 5.2: committed before the acknowledgement)', () => {
	beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] }));
	afterEach(() => vi.useRealTimers());

	it('on PostgreSQL sends a batch while earlier ones are still committing, four at the most, each caller answered by its own commit', async () => {
		const db = new HeldWrites();
		const writer = new EventWriter(db, () => new Date(), POSTGRES_PACING);
		const answers: Record<string, number | null> = {};
		const store = (id: string) => void writer.store(event(id)).then((seq) => (answers[id] = seq));
		store('evt_1');
		await after(0);
		for (const id of ['evt_2', 'evt_3', 'evt_4', 'evt_5', 'evt_6']) {
			store(id);
			await after(POSTGRES_PACING.intervalMs);
		}
		expect(db.writes.map((write) => write.ids)).toEqual([['evt_1'], ['evt_2'], ['evt_3'], ['evt_4']]);

		db.writes[1].commit();
		await after(0);
		expect(answers).toEqual({ evt_2: 1 });
		expect(db.writes.map((write) => write.ids).slice(4)).toEqual([['evt_5', 'evt_6']]);
	});

	it('on PGlite writes one batch at a time: what arrives meanwhile waits for the commit, then goes together', async () => {
		const db = new HeldWrites();
		const writer = new EventWriter(db, () => new Date(), PGLITE_PACING);
		const first = writer.store(event('evt_1'));
		await after(0);
		const waiting = [writer.store(event('evt_2')), writer.store(event('evt_3'))];
		await after(50);
		expect(db.writes.map((write) => write.ids)).toEqual([['evt_1']]);

		db.writes[0].commit();
		expect(await first).toBe(1);
		await after(PGLITE_PACING.intervalMs);
		expect(db.writes.map((write) => write.ids)).toEqual([['evt_1'], ['evt_2', 'evt_3']]);
		db.writes[1].commit();
		expect(await Promise.all(waiting)).toEqual([2, 3]);
	});

	it('answers a repeated id in one batch as stored once, and a failed write fails only its own callers', async () => {
		const db = new HeldWrites();
		const writer = new EventWriter(db, () => new Date(), POSTGRES_PACING);
		const repeated = [writer.store(event('evt_1')), writer.store(event('evt_1'))];
		await after(0);
		const failing = writer.store(event('evt_2'));
		await after(POSTGRES_PACING.intervalMs);
		db.writes[1].fail(new Error('the database is gone'));
		await expect(failing).rejects.toThrow('the database is gone');

		db.writes[0].commit();
		expect(await Promise.all(repeated)).toEqual([1, null]);
		const later = writer.store(event('evt_3'));
		await after(POSTGRES_PACING.intervalMs);
		db.writes[2].commit();
		expect(await later).toBe(2);
	});
});

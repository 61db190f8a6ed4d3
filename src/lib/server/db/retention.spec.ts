import { describe, expect, it, onTestFinished } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import { Maintenance, MAINTENANCE_LOCK } from '../maintenance';
import { openDatabase } from './database';
import { appendLiveEvent, LIVE_RETENTION_MS } from './live-events';
import { deleteInBatches } from './retention';
import { markEventsProcessed, storeWebhookEvents, WEBHOOK_RETENTION_MS } from './webhook-events';

const t0 = new Date('2026-11-25T10:00:00Z');
const log = quietLogger;

describe.each(BACKENDS)('retention on %s (docs/operations.md "Retention")', (backend) => {
	const databases = useDatabases(backend);

	it.runIf(backend === 'PostgreSQL')('live events go on while a maintenance run holds its lock', async () => {
		const db = await databases.open();
		let appended: unknown;
		const maintenance = new Maintenance({
			db,
			log,
			now: () => t0.getTime(),
			pruneLoginAttempts: async (at) => {
				const blocked = new Promise((resolve) => setTimeout(() => resolve('blocked'), 5000));
				appended = await Promise.race([appendLiveEvent(db, 'grant.progress', null, {}, at), blocked]);
			}
		});
		expect(await maintenance.run()).toBe(true);
		expect(appended).not.toBe('blocked');
	});

	it('deletes what is past its time in batches, and keeps the rest', async () => {
		const db = await databases.open();
		for (let i = 0; i < 10; i++) await appendLiveEvent(db, 'grant.progress', null, { i }, new Date(t0.getTime() + i * 1000));
		const expiry = { table: 'live_events', key: 'id', expired: 'created_at < $1' };
		expect(await deleteInBatches(db, expiry, new Date(t0.getTime() + 7_500), { batch: 3, pauseMs: 0 })).toBe(8);
		expect((await db.query<{ n: number }>('select count(*)::int as n from live_events'))[0].n).toBe(2);
		expect(await deleteInBatches(db, expiry, new Date(t0.getTime() + 7_500), { batch: 3, pauseMs: 0 })).toBe(0);
	});

	it('a maintenance run prunes old live and webhook events; processed events are kept their week, pending ones always', async () => {
		const db = await databases.open();
		const event = (id: string) => ({
			eventId: id,
			idInBody: true,
			eventType: 'message.created',
			deliveryId: null,
			attempt: null,
			rawBody: '{}'
		});
		await storeWebhookEvents(db, [event('evt_old'), event('evt_recent'), event('evt_pending')], t0);
		const seqs = (await db.query<{ seq: number; event_id: string }>('select seq, event_id from webhook_events order by seq')).map(
			(row) => row.seq
		);
		await markEventsProcessed(db, [seqs[0]], null, t0);
		await markEventsProcessed(db, [seqs[1]], null, new Date(t0.getTime() + WEBHOOK_RETENTION_MS));
		await appendLiveEvent(db, 'grant.progress', null, {}, t0);
		await appendLiveEvent(db, 'grant.progress', null, {}, new Date(t0.getTime() + WEBHOOK_RETENTION_MS));

		const now = new Date(t0.getTime() + WEBHOOK_RETENTION_MS + 60_000);
		const maintenance = new Maintenance({ db, log, now: () => now.getTime(), pruneLoginAttempts: async () => undefined });
		expect(await maintenance.run()).toBe(true);
		expect((await db.query<{ event_id: string }>('select event_id from webhook_events order by seq')).map((row) => row.event_id)).toEqual([
			'evt_recent',
			'evt_pending'
		]);
		const kept = await db.query<{ created_at: Date }>('select created_at from live_events');
		expect(kept.map((row) => new Date(row.created_at).getTime())).toEqual([t0.getTime() + WEBHOOK_RETENTION_MS]);
	});
});

describe('retention with several processes on PostgreSQL', () => {
	const databases = useDatabases('PostgreSQL');

	it('runs in one process at a time, and skips rows another transaction holds', async () => {
		// Two processes: two pools on one database.
		const databaseUrl = (await databases.databaseUrl())!;
		const db = await openDatabase({ databaseUrl, dataDir: '' });
		const other = await openDatabase({ databaseUrl, dataDir: '' });
		onTestFinished(() => Promise.all([db.close(), other.close()]).then(() => undefined));
		for (let i = 0; i < 5; i++) await appendLiveEvent(db, 'grant.progress', null, { i }, t0);
		const now = () => t0.getTime() + LIVE_RETENTION_MS + 1;
		const maintenance = new Maintenance({ db, log, now, pruneLoginAttempts: async () => undefined });

		const running = await other.withConnection(async (connection) => {
			await connection.query('select pg_advisory_lock($1)', [MAINTENANCE_LOCK]);
			const skipped = await maintenance.run();
			await connection.query('select pg_advisory_unlock($1)', [MAINTENANCE_LOCK]);
			return skipped;
		});
		expect(running).toBe(false);
		expect((await db.query<{ n: number }>('select count(*)::int as n from live_events'))[0].n).toBe(5);

		const [held] = await db.query<{ id: number }>('select id from live_events order by id limit 1');
		const deleted = await other.transaction(async (tx) => {
			await tx.query('select id from live_events where id = $1 for update', [held.id]);
			return deleteInBatches(db, { table: 'live_events', key: 'id', expired: 'created_at < $1' }, new Date(now()), { pauseMs: 0 });
		});
		expect(deleted).toBe(4);
		expect(await maintenance.run()).toBe(true);
		expect((await db.query<{ n: number }>('select count(*)::int as n from live_events'))[0].n).toBe(0);
	});
});

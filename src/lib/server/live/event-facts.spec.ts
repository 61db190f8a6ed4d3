import { describe, expect, it } from 'vitest';
import { accountRecord } from '$test-support/accounts';
import { useDatabases } from '$test-support/databases';
import { ensureConversation } from '../db/conversations';
import type { Queryable } from '../db/database';
import type { LiveEvent } from '../db/live-events';
import { EventFacts } from './event-facts';

const now = new Date('2026-11-27T10:00:00Z');
const admin = accountRecord({ accountId: 'acc_admin', username: 'grace', role: 'admin' });
const keyless = accountRecord({ accountId: 'acc_eve', username: 'eve', role: 'agent' });

const changed = (id: number, conversationId: string): LiveEvent => ({
	id,
	type: 'conversation.changed',
	conversationId,
	payload: { conversationId }
});
const message = (id: number, conversationId: string): LiveEvent => ({ id, type: 'message.created', conversationId, payload: {} });

interface CountedDatabase {
	statements: number;
	failing: boolean;
	db: Queryable;
}

/** The database, counting the statements asked of it and failing them while `failing` is set. */
function counted(db: Queryable): CountedDatabase {
	const counter: CountedDatabase = {
		statements: 0,
		failing: false,
		db: {
			query: ((sql, params) => {
				counter.statements++;
				return counter.failing ? Promise.reject(new Error('the database is away')) : db.query(sql, params);
			}) as Queryable['query'],
			exec: (sql: string) => db.exec(sql)
		} satisfies Queryable
	};
	return counter;
}

describe('what conversation events show every account of a process (docs/inbox-api.md §7 "Fan-out")', () => {
	const databases = useDatabases('PGlite');

	it('asks a run once for every account, whatever their number, and only what was not asked before', async () => {
		const db = await databases.open();
		for (const id of ['conv_a', 'conv_b']) await ensureConversation(db, id, 'active', now);
		const counter = counted(db);
		const facts = new EventFacts(counter.db);
		const accounts = Array.from({ length: 30 }, (_, n) => accountRecord({ accountId: `acc_${n}`, username: `agent${n}`, role: 'agent' }));
		const run = [message(1, 'conv_a'), changed(2, 'conv_a'), message(3, 'conv_b'), changed(4, 'conv_b')];

		const first = facts.of(run, () => [admin, keyless, ...accounts]);
		const views = await first.get(4)!;
		// one statement for what differs per account, one for what all accounts share
		expect(counter.statements).toBe(2);
		expect(views.viewOf('conv_b', admin)?.conversationId).toBe('conv_b');
		expect(views.mayRead('conv_a', admin)).toBe(true);
		expect(views.mayRead('conv_a', keyless)).toBe(false);
		expect(views.viewOf('conv_a', keyless)?.readable).toBe(false);

		// another stream's run that overlaps asks only for the event not asked yet
		const second = facts.of([changed(4, 'conv_b'), message(5, 'conv_a')], () => [admin]);
		expect(await second.get(4)).toBe(views);
		await second.get(5);
		expect(counter.statements).toBe(3);
	});

	it('keeps what it asked for a minute: a stream later than that asks again', async () => {
		const db = await databases.open();
		await ensureConversation(db, 'conv_a', 'active', now);
		const counter = counted(db);
		let clock = 0;
		const facts = new EventFacts(counter.db, () => clock);
		await facts.of([changed(1, 'conv_a')], () => [admin]).get(1);
		expect(counter.statements).toBe(2);
		clock = 59_000;
		await facts.of([changed(2, 'conv_a')], () => [admin]).get(2);
		await facts.of([changed(1, 'conv_a')], () => [admin]).get(1);
		expect(counter.statements).toBe(4);
		clock = 61_000;
		await facts.of([changed(3, 'conv_a')], () => [admin]).get(3);
		expect(counter.statements).toBe(6);
		// asked over a minute ago: asked again, and the same
		expect((await facts.of([changed(1, 'conv_a')], () => [admin]).get(1))?.viewOf('conv_a', admin)?.conversationId).toBe('conv_a');
		expect(counter.statements).toBe(8);
		// asked within the minute: kept
		await facts.of([changed(2, 'conv_a')], () => [admin]).get(2);
		expect(counter.statements).toBe(8);
	});

	it('does not keep a failure: the next stream to ask asks again', async () => {
		const db = await databases.open();
		await ensureConversation(db, 'conv_a', 'active', now);
		const counter = counted(db);
		const facts = new EventFacts(counter.db);
		counter.failing = true;
		await expect(facts.of([message(1, 'conv_a')], () => [admin]).get(1)).rejects.toThrow('the database is away');
		counter.failing = false;
		expect((await facts.of([message(1, 'conv_a')], () => [admin]).get(1))?.mayRead('conv_a', admin)).toBe(true);
	});
});

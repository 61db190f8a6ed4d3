import { describe, expect, it, vi } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { accountRecord } from '$test-support/accounts';
import { appendLiveEvents } from '../db/live-events';
import type { Logger } from '../log';
import { LiveHub, type LiveSubscriber } from './hub';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

const account = accountRecord({ accountId: 'acc_AAAAAAAAAAAAAAAA', username: 'ada', role: 'agent' });

function subscriber() {
	return {
		sessionTokenHash: 'hash',
		accountId: account.accountId,
		account: () => account,
		accountChanged: () => {},
		wake: () => {},
		end: vi.fn<LiveSubscriber['end']>(),
		serviceReachability: () => {}
	} satisfies LiveSubscriber;
}

describe('the live hub of a process (docs/operations.md "Stopping a process")', () => {
	const databases = useDatabases('PGlite');

	it('ends its streams when the process stops, and a stream opened afterwards at once', async () => {
		const hub = new LiveHub(await databases.open(), quiet);
		await hub.start();
		const open = subscriber();
		hub.subscribe(open);
		await hub.stop();
		expect(open.end.mock.calls).toEqual([['shutdown']]);
		const late = subscriber();
		hub.subscribe(late);
		expect(late.end.mock.calls).toEqual([['shutdown']]);
	});

	it('serves the events after any id from memory, each stream where it left off', async () => {
		const db = await databases.open();
		const hub = new LiveHub(db, quiet);
		await hub.start();
		let woken = () => {};
		const read = new Promise<void>((resolve) => (woken = resolve));
		hub.subscribe({ ...subscriber(), wake: () => woken() });
		const ids = await appendLiveEvents(
			db,
			Array.from({ length: 7 }, (_, n) => ({ type: 'message.created' as const, conversationId: 'conv_a', payload: { n } })),
			new Date()
		);
		hub.pull();
		await read;
		expect((await hub.eventsAfter(ids[2], 3)).map((event) => event.id)).toEqual(ids.slice(3, 6));
		expect((await hub.eventsAfter(ids[0] - 1, 100)).map((event) => event.id)).toEqual(ids);
		expect(await hub.eventsAfter(ids[6], 100)).toEqual([]);
		await hub.stop();
	});
});

describe('the events the hub keeps in memory (docs/operations.md "Soak")', () => {
	const databases = useDatabases('PGlite');

	it('are those read within the last minute: older ones come from the database, the same events', async () => {
		const db = await databases.open();
		let clock = 0;
		const hub = new LiveHub(db, quiet, () => clock);
		await hub.start();
		let woken = () => {};
		hub.subscribe({ ...subscriber(), wake: () => woken() });
		const append = async (count: number) => {
			const read = new Promise<void>((resolve) => (woken = resolve));
			const ids = await appendLiveEvents(
				db,
				Array.from({ length: count }, (_, n) => ({ type: 'message.created' as const, conversationId: 'conv_a', payload: { n } })),
				new Date()
			);
			hub.pull();
			await read;
			return ids;
		};
		const query = vi.spyOn(db, 'query');
		// the events after `id` the hub gives, and how many times it asked the database for them meanwhile
		const served = async (id: number) => {
			const asked = query.mock.calls.length;
			const events = await hub.eventsAfter(id, 100);
			const reads = query.mock.calls.slice(asked).filter(([, params]) => params?.[0] === id).length;
			return { ids: events.map((event) => event.id), reads };
		};
		const early = await append(6);
		clock = 59_000;
		const later = await append(2);
		// within the minute: all eight from memory
		expect(await served(early[0] - 1)).toEqual({ ids: [...early, ...later], reads: 0 });
		clock = 61_000;
		const last = await append(1);
		// the first six were read over a minute ago: asked of the database, where they are the same
		expect(await served(early[0] - 1)).toEqual({ ids: [...early, ...later, ...last], reads: 1 });
		// those read since still come from memory
		expect(await served(early[5])).toEqual({ ids: [...later, ...last], reads: 0 });
		await hub.stop();
	});
});

describe('streams that fell behind together (docs/operations.md "Fan-out")', () => {
	const databases = useDatabases('PGlite');

	it('read a page older than memory holds once for all of them, and again once it was read', async () => {
		const db = await databases.open();
		const ids = await appendLiveEvents(
			db,
			Array.from({ length: 5 }, (_, n) => ({ type: 'message.created' as const, conversationId: 'conv_a', payload: { n } })),
			new Date()
		);
		// started after the events were written: it holds none of them in memory
		const hub = new LiveHub(db, quiet);
		await hub.start();
		const query = vi.spyOn(db, 'query');
		// the reads of that page (the hub's own look for new events, every few seconds, reads after the newest)
		const readsOfThePage = () => query.mock.calls.filter(([, params]) => params?.[0] === ids[0] - 1).length;
		const pages = await Promise.all(Array.from({ length: 50 }, () => hub.eventsAfter(ids[0] - 1, 3)));
		expect(readsOfThePage()).toBe(1);
		for (const page of pages) expect(page.map((event) => event.id)).toEqual(ids.slice(0, 3));
		expect((await hub.eventsAfter(ids[0] - 1, 3)).map((event) => event.id)).toEqual(ids.slice(0, 3));
		expect(readsOfThePage()).toBe(2);
		await hub.stop();
	});
});

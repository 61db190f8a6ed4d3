import { describe, expect, it, vi } from 'vitest';
import { useDatabases } from '$test-support/databases';
import type { Logger } from '../log';
import { LiveHub, type LiveSubscriber } from './hub';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

function subscriber() {
	return {
		sessionTokenHash: 'hash',
		accountId: 'acc_AAAAAAAAAAAAAAAA',
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
});

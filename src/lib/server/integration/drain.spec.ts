import { once } from 'node:events';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { grantJobUnderWay, settledGrantJob, wrapUploadsOf } from '$test-support/admin-api';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { freePort } from '../../../cli/stack/processes';
import { startInbox, type RunningInbox } from '../../../cli/stack/stack';

// Real processes and a real simulator on a shared machine: the bounds are the ones the docs promise.
vi.setConfig({ testTimeout: 300_000 });

const CONVERSATIONS = 6_000;

describe('stopping a process of several on one PostgreSQL (docs/operations.md "Stopping a process")', () => {
	const harness = useStack('PostgreSQL');
	let second: RunningInbox | undefined;
	afterAll(() => second?.stop());

	it('on SIGTERM a process tells its live streams to reconnect, gives its grant job back to a live process at once, and exits within 10 s', async () => {
		const stack = harness.stack();
		const { jobId, stream, seededIds } = await grantJobUnderWay(stack, await harness.login(ADMIN), CONVERSATIONS, 'drain');

		second = await startInbox({ dataDir: stack.dataDir, databaseUrl: stack.databaseUrl, company: stack.company, port: await freePort() });
		const onSecond = await InboxClient.loggedIn(second.url, ADMIN.username, ADMIN.password);
		expect((await onSecond.get(`/api/admin/grant-jobs/${jobId}`)).body.state).toBe('running');

		const { child } = stack.inbox.process;
		const exited = once(child, 'exit');
		const signalledAt = Date.now();
		child.kill('SIGTERM');
		await stream.waitFor((event) => event.event === 'server.stopping', 10_000);
		await stream.waitForEnd(10_000);
		const [code] = await exited;
		expect(Date.now() - signalledAt).toBeLessThan(10_000);
		expect(code).toBe(0);

		// The job was given back: the live process continues it long before the lease (15 s) would have run out.
		const atExit = (await onSecond.get(`/api/admin/grant-jobs/${jobId}`)).body.done as number;
		expect(atExit).toBeLessThan(CONVERSATIONS);
		await expect
			.poll(async () => (await onSecond.get(`/api/admin/grant-jobs/${jobId}`)).body.done, { timeout: 10_000, interval: 100 })
			.toBeGreaterThan(atExit);
		expect(Date.now() - signalledAt).toBeLessThan(10_000);

		expect(await settledGrantJob(onSecond, jobId)).toMatchObject({ state: 'done', done: CONVERSATIONS, failed: 0 });
		expect(new Set(await wrapUploadsOf(stack, seededIds))).toEqual(new Set([1]));
	});
});

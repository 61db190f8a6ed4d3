/**
 * The cluster suite (docs/operations.md "Behind a load balancer"): two `node build` processes behind
 * HAProxy running docs/haproxy.cfg on one PostgreSQL, with the simulator delivering webhooks through
 * HAProxy. Each scenario runs on the one cluster of this file and ends with its counts.
 */
import { once } from 'node:events';
import { cpSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { settledGrantJob } from '$test-support/admin-api';
import { simControl, type Customer } from '$test-support/customer';
import { HAPROXY_CONFIG } from '$test-support/haproxy';
import { startKeepAliveClients, type Outcome } from '$test-support/keep-alive-clients';
import { parseLog } from '$test-support/server-log';
import { postWebhook } from '$test-support/webhooks';
import { signStatement } from '../../src/lib/crypto/index';
import { useCluster, WORK_LEASE_MS, type Cluster } from './cluster';
import { newCustomers, startCustomerLoad } from './customer-load';
import { grantJobOwnedBy, signingKeyOf, uploadsSince } from './grant-jobs';
import { deliveriesOf, report, settledCounts, timedOutAttempts } from './webhook-ledger';

// Real processes, HAProxy and PostgreSQL on a shared machine: waits are generous; the only timed
// assertion is the drain's, which docs/operations.md promises ("Stopping a process").
vi.setConfig({ testTimeout: 90_000 });

let cluster: Cluster;
useCluster((started) => (cluster = started));

/** Waits until the simulator made an attempt at every event of the customers' conversations so far. */
async function deliveredSoFar(customers: readonly Customer[]): Promise<void> {
	const ids = customers.map((customer) => customer.conversationId);
	await expect
		.poll(async () => (await deliveriesOf(cluster, ids)).every((delivery) => delivery.attempts > 0), { timeout: 30_000 })
		.toBe(true);
}

/**
 * The bodies of the customer's next `count` messages, which the simulator tried to deliver once and
 * was told to record as refused with 400 (so it never sends them again): the test delivers them itself.
 */
async function withheldBodies(customer: Customer, count: number): Promise<{ eventId: string; body: string }[]> {
	const { companyId } = cluster.company;
	await simControl(cluster.sim.url).control('POST', '/_sim/faults', { companyId, failNext: count, status: 400 });
	for (let n = 0; n < count; n++) await customer.say(`withheld ${n}`);
	const withheld = async () =>
		(await deliveriesOf(cluster, [customer.conversationId])).filter((delivery) => delivery.attemptLog[0]?.injected === 'status');
	await expect.poll(async () => (await withheld()).length, { timeout: 30_000 }).toBe(count);
	return (await withheld()).map((delivery) => ({ eventId: delivery.eventId, body: delivery.body }));
}

/** Posts each body to each URL `copies` times, all at once; the event ids every copy of which got a 2xx, how many got anything else, and how many were new. */
async function deliverToAll(events: readonly { eventId: string; body: string }[], urls: readonly string[], copies: number) {
	const answers = await Promise.all(
		events.flatMap((event) =>
			urls.flatMap((url) =>
				Array.from({ length: copies }, async () => {
					const response = await postWebhook(`${url}/webhooks/service`, cluster.company.webhookSecret, event.body, {
						eventId: event.eventId
					});
					return { eventId: event.eventId, status: response.status, duplicate: (await response.json()).duplicate };
				})
			)
		)
	);
	const refused = answers.filter((answer) => answer.status !== 200);
	return {
		acknowledged: events.map((event) => event.eventId).filter((eventId) => !refused.some((answer) => answer.eventId === eventId)),
		refused: refused.length,
		firstCopies: answers.filter((answer) => answer.duplicate === false).length
	};
}

describe('two inbox processes behind HAProxy on one PostgreSQL (docs/operations.md "Behind a load balancer")', () => {
	it('docs/operations.md shows the HAProxy configuration the suite runs, as it is', async () => {
		const operations = await readFile(join(process.cwd(), 'docs', 'operations.md'), 'utf8');
		const shown = /## Behind a load balancer\n[^]*?```haproxy\n([^]*?)```/.exec(operations)?.[1];
		expect(shown).toBe(await readFile(HAPROXY_CONFIG, 'utf8'));
	});

	it('the same events delivered to both processes at once are stored and processed once', async () => {
		const [customer] = await newCustomers(cluster, 1);
		await deliveredSoFar([customer]);
		// The simulator sends each of the next 30 twice at once through HAProxy, which hands the copies to one process each.
		await simControl(cluster.sim.url).control('POST', '/_sim/faults', {
			companyId: cluster.company.companyId,
			failNext: 30,
			duplicate: true
		});
		for (let n = 0; n < 30; n++) await customer.say(`twice ${n}`);
		await deliveredSoFar([customer]);
		// 20 more posted by the test to both processes directly, twice each, all at once.
		const withheld = await withheldBodies(customer, 20);
		const direct = await deliverToAll(
			withheld,
			cluster.members.map((member) => member.url),
			2
		);

		const counts = await settledCounts(cluster, [customer.conversationId], {
			expected: 51,
			extraAcknowledged: direct.acknowledged,
			extraRefused: direct.refused
		});
		report('duplicates to both', counts, ` (30 sent twice at once through HAProxy, 20 posted 4 times to both processes)`);
		expect(direct.firstCopies).toBe(20);
		expect(counts).toEqual({ acknowledged: 51, stored: 51, processedOnce: 51, refused: 0 });
	});

	it('an event stream on one process sees at once the events the other acknowledged', async () => {
		const [one, two] = cluster.members;
		const [customer] = await newCustomers(cluster, 1);
		await deliveredSoFar([customer]);
		const stream = await (await cluster.adminOn(two)).events();
		try {
			const withheld = await withheldBodies(customer, 10);
			const direct = await deliverToAll(withheld, [one.url], 1);
			const seen = () =>
				stream.received.filter((event) => event.event === 'message.created' && event.data.conversationId === customer.conversationId);
			await expect.poll(() => seen().length, { timeout: 30_000 }).toBe(10);
			const counts = await settledCounts(cluster, [customer.conversationId], {
				expected: 11,
				extraAcknowledged: direct.acknowledged,
				extraRefused: direct.refused
			});
			report('event stream on inbox-2, events acknowledged by inbox-1', counts, `, ${seen().length} seen on the stream`);
			expect(counts).toEqual({ acknowledged: 11, stored: 11, processedOnce: 11, refused: 0 });
		} finally {
			stream.close();
		}
	});

	it.each(['inbox-1', 'inbox-2'])('kill -9 of %s under load loses nothing, and it comes back in place', async (name) => {
		const member = cluster.members.find((candidate) => candidate.name === name)!;
		const load = await startCustomerLoad(cluster, 4, 40, 'kill');
		await load.reached(40);
		await member.inbox.kill();
		await cluster.haproxy.waitForServer(member.name, 'DOWN');
		await Promise.all([load.done, cluster.restart(member)]);

		const counts = await settledCounts(cluster, load.conversationIds, { expected: load.events });
		report(`kill -9 of ${member.name} under load`, counts);
		expect(counts).toEqual({ acknowledged: load.events, stored: load.events, processedOnce: load.events, refused: 0 });
	});

	it('a process paused past its leases (SIGSTOP) finds its grant job and its events taken over when it resumes, and re-applies nothing', async () => {
		const [one, two] = cluster.members;
		const onTwo = await cluster.adminOn(two);
		const linesBefore = one.output.length;
		const load = await startCustomerLoad(cluster, 4, 80, 'paused');
		const { child } = one.inbox.process;
		let atPause: number;
		let job: Awaited<ReturnType<typeof grantJobOwnedBy>>;
		try {
			// the owner is paused as soon as the job has started, mid-job
			job = await grantJobOwnedBy(cluster, one, two, 6_000, { pauseOwnerOnceStarted: true });
			await cluster.haproxy.waitForServer(one.name, 'DOWN');
			atPause = (await onTwo.get(`/api/admin/grant-jobs/${job.jobId}`)).body.done;
			// once its lease ran out, the other process continues the job
			await expect
				.poll(async () => (await onTwo.get(`/api/admin/grant-jobs/${job.jobId}`)).body.done, { timeout: 30_000 })
				.toBeGreaterThan(atPause);
		} finally {
			child.kill('SIGCONT');
		}
		// when it resumes it finds the lease gone and records nothing more of the job
		const lostTheJob = () =>
			parseLog(one.output.slice(linesBefore).join('\n')).filter(
				(line) =>
					line.msg === 'grant job left to the process that holds it now' ||
					(line.msg === 'grant jobs paused' && String(line.reason).includes('lease'))
			);
		await expect.poll(() => lostTheJob().length, { timeout: 30_000 }).toBeGreaterThan(0);
		await Promise.all(cluster.members.map((member) => cluster.haproxy.waitForServer(member.name, 'UP')));
		await load.done;

		const counts = await settledCounts(cluster, load.conversationIds, { expected: load.events });
		const granted = await settledGrantJob(onTwo, job!.jobId);
		const uploads = await uploadsSince(cluster, job!.uploadsBefore);
		report(
			`SIGSTOP of ${one.name} past its ${WORK_LEASE_MS} ms leases under load`,
			counts,
			`; its grant job taken over at ${atPause!} of ${granted.total}: ${granted.done} done, ${uploads.once} uploaded once, ${uploads.more} more than once`
		);
		// a delivery HAProxy gave the process as it froze can go unanswered past the service's time-out when
		// its retries (4 s each) meet the frozen process again or the busy other one: the service sends it
		// again, and it is stored and processed once like every other; nothing else may be refused
		const timedOut = await timedOutAttempts(cluster, load.conversationIds);
		expect(counts).toEqual({ acknowledged: load.events, stored: load.events, processedOnce: load.events, refused: timedOut });
		expect(granted).toMatchObject({ state: 'done', done: granted.total, failed: 0 });
		expect(uploads).toEqual({ once: granted.total, more: 0 });
	});

	it('SIGTERM under load: the process exits with 0 within 10 s, HAProxy takes it out, and no request nor event is lost', async () => {
		const member = cluster.members[1];
		const admin = await cluster.admin();
		const load = await startCustomerLoad(cluster, 4, 40, 'drain');
		const clients = startKeepAliveClients(cluster.haproxy.url, {
			count: 8,
			paths: ['/api/session', '/api/conversations', '/api/team', '/favicon.svg'],
			headers: { cookie: admin.cookie! }
		});
		await load.reached(40);

		const { child } = member.inbox.process;
		const exited = once(child, 'exit');
		const signalledAt = performance.now();
		child.kill('SIGTERM');
		await cluster.haproxy.waitForServer(member.name, 'DOWN');
		const [code, signal] = await exited;
		const tookMs = performance.now() - signalledAt;
		await Promise.all([load.done, cluster.restart(member)]);
		clients.stop();
		await clients.done;

		const counts = await settledCounts(cluster, load.conversationIds, { expected: load.events });
		const requests = clients.outcomes.flat();
		// A kept-alive connection HAProxy closed as the client reused it: a browser sends such a GET again by
		// itself, so it is counted apart (and ends that client); anything else is a failure.
		const isResetOfReusedConnection = (outcome: Outcome) => outcome.error === 'ECONNRESET' && outcome.reusedSocket;
		const resets = requests.filter(isResetOfReusedConnection);
		const failed = requests.filter((outcome) => outcome.status !== 200 && !isResetOfReusedConnection(outcome));
		report(
			`SIGTERM drain of ${member.name} under load`,
			counts,
			`; exit code ${code} after ${Math.round(tookMs)} ms; ${requests.length} requests through HAProxy, ${failed.length} failed, ${resets.length} reused connections reset`
		);
		expect([code, signal]).toEqual([0, null]);
		expect(tookMs).toBeLessThan(10_000);
		expect(failed).toEqual([]);
		expect(counts).toEqual({ acknowledged: load.events, stored: load.events, processedOnce: load.events, refused: 0 });
	});

	it("a grant job's owner killed: the other process takes the job over and every conversation is uploaded once", async () => {
		const [one, two] = cluster.members;
		// the company's conversations so far (over two thousand) are enough
		const job = await grantJobOwnedBy(cluster, one, two, 0);
		await one.inbox.kill();
		const onTwo = await cluster.adminOn(two);
		const atKill = (await onTwo.get(`/api/admin/grant-jobs/${job.jobId}`)).body.done as number;
		await Promise.all([cluster.restart(one), cluster.haproxy.waitForServer(two.name, 'UP')]);

		// the job grants every conversation of the company: the seeded ones and those of the scenarios before
		const granted = await settledGrantJob(onTwo, job.jobId);
		const uploads = await uploadsSince(cluster, job.uploadsBefore);
		console.log(
			`cluster: grant job owner (${one.name}) killed at ${atKill} of ${granted.total}: ${granted.done} done, ${granted.failed} failed, ${uploads.once} uploaded once, ${uploads.more} more than once`
		);
		expect(atKill).toBeLessThan(granted.total as number);
		expect(granted).toMatchObject({ state: 'done', done: granted.total, failed: 0 });
		expect(uploads).toEqual({ once: granted.total, more: 0 });
	});

	it('the webhook secret and the company key rotated through one process while the other runs from its own DATA_DIR: the other is unready until its files follow, and nothing is refused', async () => {
		const [one, two] = cluster.members;
		const load = await startCustomerLoad(cluster, 4, 40, 'rotation');
		await load.reached(20);
		const onOne = await cluster.adminOn(one);

		const rotated = await onOne.post('/api/admin/webhook-secret/rotation', {});
		expect(rotated.status).toBe(200);
		const started = await onOne.post('/api/admin/company-key/rotation', {});
		expect(started.status).toBe(201);
		const rotationSignature = signStatement(started.body.statement, await signingKeyOf(one));
		const confirmed = await onOne.post('/api/admin/company-key/rotation/confirm', {
			toKeyVersion: started.body.toKeyVersion,
			rotationSignature
		});
		expect(confirmed.status).toBe(200);

		await cluster.haproxy.waitForServer(two.name, 'DOWN');
		const unready = await (await fetch(`${two.url}/api/ready`)).json();
		cpSync(join(one.dataDir, 'keys'), join(two.dataDir, 'keys'), { recursive: true });
		await cluster.haproxy.waitForServer(two.name, 'UP');
		await load.done;

		const counts = await settledCounts(cluster, load.conversationIds, { expected: load.events });
		report(
			'webhook secret and company key rotated through inbox-1 under load',
			counts,
			`; inbox-2 unready for ${unready.reasons} until its key files followed`
		);
		expect(unready.reasons).toEqual(['company_key_files']);
		expect(counts).toEqual({ acknowledged: load.events, stored: load.events, processedOnce: load.events, refused: 0 });
	});
});

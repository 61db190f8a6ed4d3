/**
 * What became of a scenario's webhooks in the cluster (docs/operations.md "Behind a load balancer"), from
 * three sides: the simulator's delivery log (what the service got a 2xx for, and every attempt that got
 * anything else), the database's `webhook_events` (stored, processed) and both processes' logs (each
 * event's `webhook event processed` line, written once its processing committed).
 */
import pg from 'pg';
import { simControl } from '../support/customer';
import type { Cluster } from './cluster';

/* eslint-disable @typescript-eslint/no-explicit-any -- the simulator's delivery log is read loosely */

export interface WebhookCounts {
	/** Events acknowledged with a 2xx, to the service or to the test's own deliveries. */
	acknowledged: number;
	/** Of those, stored once in `webhook_events`. */
	stored: number;
	/**
	 * Of those, marked processed and logged as processed by no more than one process (a process killed
	 * between its commit and its log line logs none; one applying an event twice would log it twice).
	 */
	processedOnce: number;
	/** Deliveries that reached the cluster and got anything but a 2xx, or no answer (faults the test injected aside). */
	refused: number;
}

const isSuccess = (status: number | null | undefined) => typeof status === 'number' && status >= 200 && status < 300;

/** The simulator's deliveries of the conversations' events. */
export async function deliveriesOf(cluster: Cluster, conversationIds: readonly string[]): Promise<any[]> {
	const sim = simControl(cluster.sim.url);
	const pages = await Promise.all(
		conversationIds.map(
			async (id) => (await sim.control('GET', `/_sim/deliveries?companyId=${cluster.company.companyId}&conversationId=${id}`)).body.data
		)
	);
	return pages.flat();
}

/** Attempts that reached the cluster and were not acknowledged: the faults the simulator injected on purpose are not. */
function refusedAttempts(delivery: any): number {
	return delivery.attemptLog.filter(
		(attempt: any) =>
			attempt.injected !== 'status' &&
			attempt.injected !== 'timeout' &&
			(!isSuccess(attempt.status) || (attempt.duplicateStatus !== undefined && !isSuccess(attempt.duplicateStatus)))
	).length;
}

/**
 * The attempts of the conversations' deliveries that got no answer within the service's time-out (and
 * were not a fault the simulator injected): the service sends those again.
 */
export async function timedOutAttempts(cluster: Cluster, conversationIds: readonly string[]): Promise<number> {
	const deliveries = await deliveriesOf(cluster, conversationIds);
	return deliveries
		.flatMap((delivery) => delivery.attemptLog)
		.filter((attempt: any) => attempt.injected === null && attempt.status === null && attempt.error === 'timeout').length;
}

/** How often each process logged each event as processed. */
function processedLines(cluster: Cluster): Map<string, number> {
	const counts = new Map<string, number>();
	for (const member of cluster.members) {
		for (const line of member.output) {
			if (!line.includes('"webhook event processed"')) continue;
			const { event } = JSON.parse(line) as { event: string };
			counts.set(event, (counts.get(event) ?? 0) + 1);
		}
	}
	return counts;
}

/**
 * HAProxy's log lines (`option httplog`: `Tq/Tw/Tc/Tr/Ta`, status, termination state, `+retries`) of the
 * webhooks that took a second or more or got no 200, and its servers' changes of state.
 */
function haproxyTrouble(cluster: Cluster): string[] {
	return cluster.haproxy.log.filter((line) => {
		if (/ is (UP|DOWN)|going DOWN|back UP/.test(line)) return true;
		const logged = / webhooks\/\S+ (-?\d+)\/(-?\d+)\/(-?\d+)\/(-?\d+)\/\+?(-?\d+) (-?\d+) /.exec(line);
		return logged !== null && (Number(logged[5]) >= 1000 || logged[6] !== '200');
	});
}

async function storedStates(cluster: Cluster, eventIds: readonly string[]): Promise<Map<string, string>> {
	const client = new pg.Client({ connectionString: cluster.databaseUrl });
	await client.connect();
	try {
		const { rows } = await client.query<{ event_id: string; state: string }>(
			'select event_id, state from webhook_events where event_id = any($1)',
			[eventIds]
		);
		return new Map(rows.map((row) => [row.event_id, row.state]));
	} finally {
		await client.end();
	}
}

/**
 * Waits until the simulator has made an attempt at each of `expected` deliveries of the conversations'
 * events and the cluster has processed every event acknowledged, then counts. `extraAcknowledged`: events
 * the test delivered itself and got a 2xx for; `extraRefused`: its own deliveries that did not.
 */
export async function settledCounts(
	cluster: Cluster,
	conversationIds: readonly string[],
	options: { expected: number; extraAcknowledged?: readonly string[]; extraRefused?: number; timeoutMs?: number }
): Promise<WebhookCounts> {
	const deadline = Date.now() + (options.timeoutMs ?? 60_000);
	for (;;) {
		const deliveries = await deliveriesOf(cluster, conversationIds);
		const attempted = deliveries.filter((delivery) => delivery.attempts > 0);
		const acknowledged = new Set([
			...attempted.filter((delivery) => delivery.status === 'succeeded').map((delivery) => delivery.eventId as string),
			...(options.extraAcknowledged ?? [])
		]);
		const states = await storedStates(cluster, [...acknowledged]);
		const processed = [...acknowledged].filter((eventId) => states.get(eventId) === 'processed');
		const done = attempted.length === deliveries.length && attempted.length >= options.expected && processed.length === acknowledged.size;
		if (done || Date.now() > deadline) {
			const lines = processedLines(cluster);
			// a refusal is a bug to find: the output keeps what the simulator saw of each one
			let refusals = 0;
			for (const delivery of attempted)
				for (const attempt of delivery.attemptLog)
					if (refusedAttempts({ attemptLog: [attempt] })) {
						refusals++;
						console.log(`cluster: refused attempt of ${delivery.eventId}: ${JSON.stringify(attempt)}`);
					}
			// and how HAProxy saw it: which process each slow or failed webhook ended on, its timers and retries
			if (refusals > 0) console.log(`cluster: HAProxy's slow or failed webhooks and state changes:\n${haproxyTrouble(cluster).join('\n')}`);
			return {
				acknowledged: acknowledged.size,
				stored: [...acknowledged].filter((eventId) => states.has(eventId)).length,
				processedOnce: processed.filter((eventId) => (lines.get(eventId) ?? 0) <= 1).length,
				refused: attempted.reduce((sum, delivery) => sum + refusedAttempts(delivery), 0) + (options.extraRefused ?? 0)
			};
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** `cluster: <scenario>: 600 acknowledged, 600 stored, 600 processed once, 0 refused`, in the test's output. */
export function report(scenario: string, counts: WebhookCounts, more = ''): void {
	console.log(
		`cluster: ${scenario}: ${counts.acknowledged} acknowledged, ${counts.stored} stored, ${counts.processedOnce} processed once, ${counts.refused} refused${more}`
	);
}

/**
 * What an operator can watch (docs/operations.md "Metrics"): prom-client metrics of this process, in a
 * registry of its own — webhooks acknowledged and refused by reason with the acknowledgement's latency,
 * processing failures, the calls to the service by status class with their latency and whether it
 * answers, refused logins and requests over a cap, and Node's own metrics. What lives in the database
 * (the queue of unprocessed webhooks, grant jobs) and in the live hub (open streams) is read when the
 * metrics are scraped, through the sources the composition root gives `observe`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EmbeddedDatabaseMemory } from './db/queryable';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'inbox_' });
// Three of prom-client's defaults are gauges named `_total`, which promtool refuses as counters' names;
// the same counts are in Node's diagnostics, not worth a lint failure on every scrape.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
	registry.removeSingleMetric(`inbox_${name}`);
}

/** Why a webhook delivery was answered as it was (contract 5.2). */
export type WebhookOutcome = 'acknowledged' | 'duplicate' | 'refused_signature' | 'refused_body' | 'store_failed';

export const webhooks = new Counter({
	name: 'inbox_webhooks_total',
	help: 'Webhook deliveries by outcome: acknowledged (stored), duplicate, refused (signature, body) or not stored (the service retries).',
	labelNames: ['outcome'] as const,
	registers: [registry]
});

export const webhookAckSeconds = new Histogram({
	name: 'inbox_webhook_ack_seconds',
	help: 'From a webhook delivery read to its answer, stored events included.',
	buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
	registers: [registry]
});

export const processingFailures = new Counter({
	name: 'inbox_webhook_processing_failures_total',
	help: 'Stored webhook events whose processing failed (each is retried, then marked failed).',
	registers: [registry]
});

/** The class of a service answer: `2xx` … `5xx`, or `network` when it never answered. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'network';

export function statusClassOf(status: number | null): StatusClass {
	if (status === null) return 'network';
	return `${Math.min(5, Math.max(2, Math.floor(status / 100)))}xx` as StatusClass;
}

export const upstreamRequests = new Counter({
	name: 'inbox_upstream_requests_total',
	help: "Attempts at the service's /v1, by status class (network: no answer).",
	labelNames: ['status_class'] as const,
	registers: [registry]
});

export const upstreamSeconds = new Histogram({
	name: 'inbox_upstream_request_seconds',
	help: "One attempt at the service's /v1, by status class.",
	labelNames: ['status_class'] as const,
	buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
	registers: [registry]
});

export const upstreamUp = new Gauge({
	name: 'inbox_upstream_up',
	help: "1 when the service's last answer came (below 500), 0 while it cannot be reached or answers 5xx.",
	registers: [registry]
});
upstreamUp.set(1);

export const loginsThrottled = new Counter({
	name: 'inbox_logins_throttled_total',
	help: 'Sign-ins refused by the rate limit (429 RATE_LIMITED).',
	registers: [registry]
});

/** Which cap per account refused a request (docs/inbox-api.md §1 "Caps"). */
export type CapName = 'upload' | 'write' | 'stream';

export const capsRefused = new Counter({
	name: 'inbox_caps_refused_total',
	help: 'Requests refused because the account was over one of its caps.',
	labelNames: ['cap'] as const,
	registers: [registry]
});

/** What events showed the accounts of the live streams: worked out with the database, or shared by another stream of the account. */
export const liveAnswers = new Counter({
	name: 'inbox_live_answers_total',
	help: "Answers of what an event shows an account (its view, its access), worked out or shared among the account's streams.",
	labelNames: ['outcome'] as const,
	registers: [registry]
});

/** What the scrape reads from the database and the hub. */
export interface ObservedState {
	/** Stored webhook events not processed yet, and the age of the oldest in seconds. */
	queue(): Promise<{ depth: number; oldestAgeSeconds: number }>;
	/** Grant jobs running, with the conversations done and in all. */
	grantJobs(): Promise<{ running: number; done: number; total: number }>;
	/** Live streams open on this process. */
	liveStreams(): number;
	/** What the embedded database holds in this process; null on PostgreSQL. */
	embeddedDatabaseMemory(): Promise<EmbeddedDatabaseMemory | null>;
	/** Why this process is not ready (empty when it is). */
	unreadyReasons(): Promise<readonly string[]>;
}

let observed: ObservedState | undefined;

/** Lets the scrape read the state of this process's inbox (called once by the composition root). */
export function observe(state: ObservedState): void {
	observed = state;
}

const queueDepth = new Gauge({
	name: 'inbox_webhook_queue_depth',
	help: 'Stored webhook events not processed yet.',
	registers: [registry]
});
const queueOldest = new Gauge({
	name: 'inbox_webhook_queue_oldest_seconds',
	help: 'Age of the oldest stored webhook event not processed yet (0 when none).',
	registers: [registry]
});
const grantsRunning = new Gauge({ name: 'inbox_grant_jobs_running', help: 'Grant jobs running.', registers: [registry] });
const grantsDone = new Gauge({
	name: 'inbox_grant_job_conversations_done',
	help: 'Conversations the running grant jobs have granted.',
	registers: [registry]
});
const grantsTotal = new Gauge({
	name: 'inbox_grant_job_conversations',
	help: 'Conversations the running grant jobs grant in all.',
	registers: [registry]
});
const ready = new Gauge({
	name: 'inbox_ready',
	help: 'Whether this process should be sent work: 1 ready, 0 unready (GET /api/ready names the reason).',
	registers: [registry]
});
const unready = new Gauge({
	name: 'inbox_unready',
	help: 'Why this process is unready: 1 for each reason that holds now (draining, database, company_key_files).',
	labelNames: ['reason'] as const,
	registers: [registry]
});
const UNREADY_REASONS = ['draining', 'database', 'company_key_files'] as const;
const liveStreams = new Gauge({ name: 'inbox_live_streams', help: 'Live event streams open on this process.', registers: [registry] });
/** Labelled, so that a process on PostgreSQL shows no sample rather than a zero. */
const embeddedDatabaseBytes = new Gauge({
	name: 'inbox_embedded_database_bytes',
	help: "The embedded database's memory in this process (PGlite only): wasm, PostgreSQL's WASM memory (never given back); worker_heap, its thread's JS heap.",
	labelNames: ['part'] as const,
	registers: [registry]
});

/** The metrics in Prometheus's text format, with the state read now. */
export async function scrape(): Promise<string> {
	if (observed) {
		// Without a database the scrape still answers: unready, with the last queue and grant figures read.
		const [reasons, queue, grants, databaseMemory] = await Promise.all([
			observed.unreadyReasons(),
			observed.queue().catch(() => null),
			observed.grantJobs().catch(() => null),
			observed.embeddedDatabaseMemory().catch(() => null)
		]);
		ready.set(reasons.length === 0 ? 1 : 0);
		for (const reason of UNREADY_REASONS) unready.set({ reason }, reasons.includes(reason) ? 1 : 0);
		if (queue) {
			queueDepth.set(queue.depth);
			queueOldest.set(queue.oldestAgeSeconds);
		}
		if (grants) {
			grantsRunning.set(grants.running);
			grantsDone.set(grants.done);
			grantsTotal.set(grants.total);
		}
		liveStreams.set(observed.liveStreams());
		if (databaseMemory) {
			embeddedDatabaseBytes.set({ part: 'wasm' }, databaseMemory.wasmBytes);
			embeddedDatabaseBytes.set({ part: 'worker_heap' }, databaseMemory.workerHeapBytes);
		}
	}
	return registry.metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;

import { execFileSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { ADMIN, useStack } from '$test-support/integration';
import { PROMTOOL_PATH } from '$test-support/prerequisites';
import { webhookHeaders } from '$test-support/webhooks';
import { freePort } from '../../../cli/stack/ports';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const TOKEN = 'metrics-token-of-the-spec-0123456789abcdef';
const metricsPort = await freePort();

/** A counter's value in Prometheus text, 0 when it has no line yet. */
function valueOf(text: string, series: string): number {
	const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
	return line ? Number(line.split(' ')[1]) : 0;
}

describe('the alerts docs/operations.md asks an operator to set (docs/ops/alerts.yml)', () => {
	it('are valid rules, and each fires on the series that should raise it and only there (promtool test rules)', () => {
		const run = (...args: string[]) => execFileSync(PROMTOOL_PATH, args, { cwd: 'docs/ops', encoding: 'utf8' });
		expect(run('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: 7 rules found/);
		expect(run('test', 'rules', 'alerts.test.yml')).toMatch(/SUCCESS/);
	});
});

describe('what an operator sees of a running inbox (docs/operations.md "Metrics", "Readiness")', () => {
	const harness = useStack('PGlite', { inboxEnv: { METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort) } });
	const url = () => harness.stack().inbox.url;
	const scrape = async (token: string | null = TOKEN) =>
		fetch(`${url()}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

	it('serves metrics promtool accepts, behind the bearer token and on a port of their own, that count webhooks by outcome', async () => {
		expect((await scrape(null)).status).toBe(401);
		expect((await scrape('not-the-token-but-as-long-as-it-0123456789')).status).toBe(401);
		const before = await (await scrape()).text();

		const admin = await harness.login(ADMIN);
		const customer = await Customer.redeem(harness.stack().simUrl, { link: (await admin.post('/api/invites', {})).body.link });
		await customer.say('counted once');
		const forged = await fetch(`${url()}/webhooks/service`, { method: 'POST', headers: webhookHeaders('t=1,v1=00'), body: '{}' });
		expect(forged.status).toBe(401);
		const acknowledged = 'inbox_webhooks_total{outcome="acknowledged"}';
		await expect
			.poll(async () => valueOf(await (await scrape()).text(), acknowledged), { timeout: 30_000 })
			.toBeGreaterThanOrEqual(valueOf(before, acknowledged) + 2);

		const response = await scrape();
		expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
		const text = await response.text();
		expect(valueOf(text, 'inbox_webhooks_total{outcome="refused_signature"}')).toBe(
			valueOf(before, 'inbox_webhooks_total{outcome="refused_signature"}') + 1
		);
		for (const name of [
			'inbox_webhook_ack_seconds_count',
			'inbox_webhook_queue_depth',
			'inbox_upstream_up',
			'inbox_live_streams',
			'inbox_process_cpu_seconds_total'
		]) {
			expect(text, name).toMatch(new RegExp(`^${name}`, 'm'));
		}
		expect(valueOf(text, 'inbox_upstream_up')).toBe(1);
		expect(valueOf(text, 'inbox_ready')).toBe(1);
		expect(valueOf(text, 'inbox_unready{reason="company_key_files"}')).toBe(0);
		// this inbox runs on PGlite: its WASM memory (PostgreSQL's shared buffers alone take 16 MiB of it) and its thread's heap
		expect(valueOf(text, 'inbox_embedded_database_bytes{part="wasm"}')).toBeGreaterThan(16 * 1024 * 1024);
		expect(valueOf(text, 'inbox_embedded_database_bytes{part="worker_heap"}')).toBeGreaterThan(0);
		// promtool's own check of the exposition format and of the metrics' names
		expect(execFileSync(PROMTOOL_PATH, ['check', 'metrics'], { input: text, encoding: 'utf8' })).toBe('');

		const ownPort = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
		expect(ownPort.status).toBe(200);
		expect(await ownPort.text()).toMatch(/^inbox_webhooks_total\{outcome="acknowledged"\} \d+$/m);
	});

	it('is ready with its queue, and says so to anyone; liveness stays apart', async () => {
		const ready = await fetch(`${url()}/api/ready`);
		expect(ready.status).toBe(200);
		expect(await ready.json()).toEqual({
			status: 'ready',
			reasons: [],
			queue: { depth: expect.any(Number), oldestAgeSeconds: expect.any(Number) },
			service: 'reachable'
		});
		expect((await fetch(`${url()}/api/health`)).status).toBe(200);
	});
});

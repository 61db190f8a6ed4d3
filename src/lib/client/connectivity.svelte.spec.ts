/**
 * What the page knows of its connections (docs/inbox-api.md §11 "Connection and outbox"): the server
 * and the service, learned from the page's own calls, a probe every few seconds while either is down,
 * the listeners that hear a connection return (the outbox sends what waited), and the banner's words.
 * First the rules, then the page's one Connectivity fed by its real calls to the running inbox, with a
 * front between the inbox and the simulator that the spec stalls.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFlakyFront, type FlakyFront } from '$test-support/flaky-front';
import { ADMIN, useStack } from '$test-support/integration';
import { PageNetwork } from '$test-support/page-network';
import { v1 } from '../wire/v1';
import { getTeam, login } from './api';
import { Connectivity, connectivity, PROBE_INTERVAL_MS } from './connectivity.svelte';
import { v1Call } from './proxy';

const SERVER_DOWN = /^The inbox server cannot be reached\./;
const SERVICE_DOWN = /^The messaging service cannot be reached\./;

describe('Connectivity', () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it('hears the server fail and answer again; each return is told once to each listener still listening', () => {
		const connections = new Connectivity();
		const heard: string[] = [];
		connections.onReturn(() => heard.push('outbox'));
		const stop = connections.onReturn(() => heard.push('thread'));
		expect([connections.server, connections.service, connections.problem(false)]).toEqual(['reachable', 'reachable', null]);

		connections.serverFailed();
		expect(connections.server).toBe('unreachable');
		expect(connections.problem(false)).toMatch(SERVER_DOWN);
		connections.serverAnswered();
		connections.serverAnswered();
		expect([connections.server, heard]).toEqual(['reachable', ['outbox', 'thread']]);

		stop();
		connections.serverFailed();
		connections.serverAnswered();
		expect(heard).toEqual(['outbox', 'thread', 'outbox']);
	});

	it('tells the service apart: an answer of the server says whether the service answered behind it', () => {
		const connections = new Connectivity();
		let returns = 0;
		connections.onReturn(() => returns++);
		connections.serverAnswered(false);
		expect([connections.server, connections.service]).toEqual(['reachable', 'unreachable']);
		expect(connections.problem(false)).toMatch(SERVICE_DOWN);
		// the inbox's own calls say nothing of the service
		connections.serverAnswered();
		expect(connections.service).toBe('unreachable');
		// the server first: without it the service cannot be reached either
		connections.serverFailed();
		expect(connections.problem(false)).toMatch(SERVER_DOWN);
		connections.serverAnswered(true);
		expect([connections.server, connections.service, connections.problem(false), returns]).toEqual(['reachable', 'reachable', null, 1]);
		// a live stream that reconnects means the server does not answer it
		expect(connections.problem(true)).toMatch(SERVER_DOWN);
	});

	it('probes every few seconds while something is unreachable, and stops once all answer or the page stops watching', async () => {
		vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
		const connections = new Connectivity();
		let probes = 0;
		const stop = connections.watch(async () => {
			probes++;
			throw new TypeError('still down');
		});
		vi.advanceTimersByTime(PROBE_INTERVAL_MS * 3);
		expect(probes).toBe(0);

		connections.serverAnswered(false);
		vi.advanceTimersByTime(PROBE_INTERVAL_MS - 1);
		expect(probes).toBe(0);
		vi.advanceTimersByTime(1);
		vi.advanceTimersByTime(PROBE_INTERVAL_MS);
		expect(probes).toBe(2);
		connections.serverAnswered(true);
		vi.advanceTimersByTime(PROBE_INTERVAL_MS * 3);
		expect(probes).toBe(2);

		connections.serverFailed();
		stop();
		vi.advanceTimersByTime(PROBE_INTERVAL_MS * 3);
		expect(probes).toBe(2);
	});
});

describe("the page's connectivity, from its calls to the running inbox", () => {
	let front: FlakyFront;
	const harness = useStack('PGlite', { serviceBaseUrl: async (simUrl) => (front = await startFlakyFront(simUrl)).url });
	let network: PageNetwork;

	beforeAll(async () => {
		network = new PageNetwork(harness.stack().inbox.url);
		vi.stubGlobal('fetch', network.fetch);
		// an admin: the proxy lets her through without a key in the roster
		await login(ADMIN.username, ADMIN.password);
		return () => vi.unstubAllGlobals();
	});

	it('is down when a call gets no answer, and up again, with its listeners told, when the next one is answered', async () => {
		let returns = 0;
		const stop = connectivity.onReturn(() => returns++);
		network.cutNextRequest('GET', /^\/api\/team$/);
		await expect(getTeam()).rejects.toBeInstanceOf(TypeError);
		expect([connectivity.server, connectivity.problem(false)]).toEqual(['unreachable', expect.stringMatching(SERVER_DOWN)]);
		await getTeam();
		expect([connectivity.server, returns]).toEqual(['reachable', 1]);
		stop();
	});

	it('knows the service is down when the inbox says it did not answer, and probes until it answers again', async () => {
		vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
		const probe = () => v1Call(v1.listConversations({ limit: 1 }));
		const probes = () => network.sent('GET', /^\/api\/v1\/conversations\?limit=1$/).length;
		let returns = 0;
		const stopHearing = connectivity.onReturn(() => returns++);
		const stopWatching = connectivity.watch(probe);
		front.stall();
		await expect(probe()).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
		expect([connectivity.server, connectivity.service]).toEqual(['reachable', 'unreachable']);
		expect(connectivity.problem(false)).toMatch(SERVICE_DOWN);
		// the inbox's own calls answer meanwhile, and say nothing of the service
		await getTeam();
		expect(connectivity.service).toBe('unreachable');

		front.resume();
		const before = probes();
		vi.advanceTimersByTime(PROBE_INTERVAL_MS);
		expect(probes()).toBe(before + 1);
		await expect.poll(() => connectivity.service, { timeout: 15_000 }).toBe('reachable');
		expect([connectivity.problem(false), returns]).toEqual([null, 1]);
		vi.advanceTimersByTime(PROBE_INTERVAL_MS * 3);
		expect(probes()).toBe(before + 1);
		stopWatching();
		stopHearing();
	});
});

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
import { Connectivity, connectionState, connectivity, PROBE_INTERVAL_MS, type ConnectionFacts } from './connectivity.svelte';
import { v1Call } from './proxy';

describe('connectionState', () => {
	const allUp: ConnectionFacts = { online: true, server: 'reachable', service: 'reachable', live: 'live' };

	it('is connected only while the browser is online, the server and its live stream answer and the service answers behind it', () => {
		expect(connectionState(allUp)).toBe('connected');
		expect(connectionState({ ...allUp, live: null })).toBe('connected');
		expect(connectionState({ ...allUp, service: 'unreachable' })).toBe('service-unreachable');
		for (const live of ['connecting', 'reconnecting', 'stopped'] as const) expect(connectionState({ ...allUp, live })).toBe('reconnecting');
		expect(connectionState({ ...allUp, server: 'unreachable' })).toBe('server-unreachable');
		expect(connectionState({ ...allUp, online: false })).toBe('offline');
	});

	it('names the nearest link that is down: the network, then the server, then its stream, then the service', () => {
		const allDown: ConnectionFacts = { online: false, server: 'unreachable', service: 'unreachable', live: 'reconnecting' };
		expect(connectionState(allDown)).toBe('offline');
		expect(connectionState({ ...allDown, online: true })).toBe('server-unreachable');
		expect(connectionState({ ...allDown, online: true, server: 'reachable' })).toBe('reconnecting');
		expect(connectionState({ ...allDown, online: true, server: 'reachable', live: 'live' })).toBe('service-unreachable');
	});
});

describe('Connectivity', () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it('hears the server fail and answer again; each return is told once to each listener still listening', () => {
		const connections = new Connectivity();
		const heard: string[] = [];
		connections.onReturn(() => heard.push('outbox'));
		const stop = connections.onReturn(() => heard.push('thread'));
		expect([connections.server, connections.service, connections.state]).toEqual(['reachable', 'reachable', 'connected']);

		connections.serverFailed();
		expect([connections.server, connections.state]).toEqual(['unreachable', 'server-unreachable']);
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
		expect([connections.server, connections.service, connections.state]).toEqual(['reachable', 'unreachable', 'service-unreachable']);
		// the inbox's own calls say nothing of the service
		connections.serverAnswered();
		expect(connections.service).toBe('unreachable');
		// the server first: without it the service cannot be reached either
		connections.serverFailed();
		expect(connections.state).toBe('server-unreachable');
		connections.serverAnswered(true);
		expect([connections.server, connections.service, connections.state, returns]).toEqual(['reachable', 'reachable', 'connected', 1]);
	});

	it('is not connected while its live stream reconnects or the browser is offline, and tells the listeners when all is back', () => {
		const connections = new Connectivity();
		let returns = 0;
		connections.onReturn(() => returns++);
		connections.liveReported('live');
		connections.liveReported('reconnecting');
		expect(connections.state).toBe('reconnecting');
		connections.onlineReported(false);
		expect(connections.state).toBe('offline');
		connections.onlineReported(true);
		expect([connections.state, returns]).toEqual(['reconnecting', 0]);
		connections.liveReported('live');
		expect([connections.state, returns]).toEqual(['connected', 1]);
		// a page without a live stream: only the calls count
		connections.liveReported(null);
		expect([connections.state, returns]).toEqual(['connected', 1]);
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
		expect([connectivity.server, connectivity.state]).toEqual(['unreachable', 'server-unreachable']);
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
		expect([connectivity.server, connectivity.service, connectivity.state]).toEqual(['reachable', 'unreachable', 'service-unreachable']);
		// the inbox's own calls answer meanwhile, and say nothing of the service
		await getTeam();
		expect(connectivity.service).toBe('unreachable');

		front.resume();
		const before = probes();
		vi.advanceTimersByTime(PROBE_INTERVAL_MS);
		expect(probes()).toBe(before + 1);
		await expect.poll(() => connectivity.service, { timeout: 15_000 }).toBe('reachable');
		expect([connectivity.state, returns]).toEqual(['connected', 1]);
		vi.advanceTimersByTime(PROBE_INTERVAL_MS * 3);
		expect(probes()).toBe(before + 1);
		stopWatching();
		stopHearing();
	});
});

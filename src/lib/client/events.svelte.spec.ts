import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveEvents, type LiveHandlers } from './events.svelte';

/** An EventSource the spec drives: it records what was opened and lets the spec send events. */
class ScriptedSource {
	static opened: ScriptedSource[] = [];
	static readonly CONNECTING = 0;
	static readonly OPEN = 1;
	static readonly CLOSED = 2;
	readyState = ScriptedSource.OPEN;
	closed = false;
	private readonly listeners = new Map<string, Array<(event: MessageEvent) => void>>();

	constructor(readonly url: string) {
		ScriptedSource.opened.push(this);
	}

	addEventListener(name: string, listener: (event: MessageEvent) => void): void {
		this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
	}

	close(): void {
		this.closed = true;
		this.readyState = ScriptedSource.CLOSED;
	}

	send(name: string, data: unknown, id = ''): void {
		for (const listener of this.listeners.get(name) ?? [])
			listener(new MessageEvent(name, { data: JSON.stringify(data), lastEventId: id }));
	}
}

const handlers = (): LiveHandlers => ({
	conversation: vi.fn(),
	message: vi.fn(),
	read: vi.fn(),
	note: vi.fn(),
	mention: vi.fn(),
	mentionRead: vi.fn(),
	labels: vi.fn(),
	teams: vi.fn(),
	targets: vi.fn(),
	team: vi.fn(),
	presence: vi.fn(),
	resync: vi.fn(),
	ready: vi.fn()
});

describe('the live stream watchdog (docs/inbox-api.md §7, §11 "Connection and outbox")', () => {
	beforeEach(() => {
		ScriptedSource.opened = [];
		vi.useFakeTimers();
		vi.stubGlobal('EventSource', ScriptedSource);
	});
	afterEach(() => {
		vi.useRealTimers();
		vi.unstubAllGlobals();
	});

	it('stays live while heartbeats come, and reopens a stream silent for 2.5 heartbeats, resuming after its last event', async () => {
		const live = new LiveEvents(handlers());
		live.start();
		const [first] = ScriptedSource.opened;
		expect(live.status).toBe('connecting');
		first.send('ready', { lastEventId: 7, heartbeatSeconds: 2 }, '7');
		expect(live.status).toBe('live');

		for (let beat = 0; beat < 5; beat++) {
			await vi.advanceTimersByTimeAsync(2_000);
			first.send('heartbeat', {});
		}
		expect([live.status, first.closed, ScriptedSource.opened.length]).toEqual(['live', false, 1]);

		// the server goes quiet (stopped, or the network dropped without telling the browser)
		await vi.advanceTimersByTimeAsync(4_999);
		expect(live.status).toBe('live');
		await vi.advanceTimersByTimeAsync(1);
		expect([live.status, first.closed]).toEqual(['reconnecting', true]);
		await vi.advanceTimersByTimeAsync(1_000);
		expect(ScriptedSource.opened).toHaveLength(2);
		expect(ScriptedSource.opened[1].url).toBe('/api/events?lastEventId=7');
		ScriptedSource.opened[1].send('ready', { lastEventId: 7, heartbeatSeconds: 2 }, '7');
		expect(live.status).toBe('live');
		live.stop();
	});

	it('opens from the event the loaded list reflects, then resumes from the newest event it heard', async () => {
		const live = new LiveEvents(handlers());
		live.start(41);
		const [first] = ScriptedSource.opened;
		expect([first.url, live.status]).toEqual(['/api/events?lastEventId=41', 'connecting']);
		first.send('conversation.changed', { conversation: { conversationId: 'c1' } }, '42');
		first.send('ready', { lastEventId: 42, heartbeatSeconds: 2 }, '42');
		await vi.advanceTimersByTimeAsync(5_000);
		await vi.advanceTimersByTimeAsync(1_000);
		expect(ScriptedSource.opened[1].url).toBe('/api/events?lastEventId=42');
		live.stop();
	});

	it('counts 15 s heartbeats until the server says otherwise, and never reopens once stopped', async () => {
		const live = new LiveEvents(handlers());
		live.start();
		await vi.advanceTimersByTimeAsync(37_499);
		expect(ScriptedSource.opened[0].closed).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect([live.status, ScriptedSource.opened[0].closed]).toEqual(['reconnecting', true]);
		live.stop();
		await vi.advanceTimersByTimeAsync(120_000);
		expect([live.status, ScriptedSource.opened.length]).toEqual(['stopped', 1]);
	});

	it('passes a mention and its read mark on to their handlers', () => {
		const given = handlers();
		const live = new LiveEvents(given);
		live.start();
		const mention = { conversationId: 'c1', noteId: 'note_1', accountId: 'acc_me', authorName: 'Ana', createdAt: '2026-11-24T10:00:00Z' };
		ScriptedSource.opened[0].send('mention.created', mention, '5');
		ScriptedSource.opened[0].send('mention.read', { conversationId: 'c1', accountId: 'acc_me' }, '6');
		expect(given.mention).toHaveBeenCalledWith(mention);
		expect(given.mentionRead).toHaveBeenCalledWith('c1');
		live.stop();
	});
});

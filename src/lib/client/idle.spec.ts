/**
 * The idle lock (src/lib/client/idle.ts; docs/crypto-worker.md "Unlock once per browser session"): once
 * per stretch without activity, measured on the clock, and the stretch is the browser's — activity in
 * another tab, shared through localStorage, keeps this one from locking.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '$test-support/memory-storage';
import { LAST_ACTIVITY_SETTING, watchIdle } from './idle';

const IDLE_SECONDS = 5;
const START = Date.UTC(2026, 0, 1);

let page: EventTarget;
let storage: MemoryStorage;
let idleLocks: number;
let stop: () => void;

beforeEach(() => {
	vi.useFakeTimers({ now: START });
	page = new EventTarget();
	vi.stubGlobal('window', page);
	vi.stubGlobal('document', new EventTarget());
	storage = new MemoryStorage();
	idleLocks = 0;
	stop = watchIdle(
		() => idleLocks++,
		() => IDLE_SECONDS,
		storage
	);
});

afterEach(() => {
	stop();
	vi.useRealTimers();
	vi.unstubAllGlobals();
});

describe('the idle lock', () => {
	it('locks once per stretch without activity, and again after activity and another stretch', () => {
		vi.advanceTimersByTime(4_000);
		expect(idleLocks).toBe(0);
		vi.advanceTimersByTime(1_000);
		expect(idleLocks).toBe(1);
		vi.advanceTimersByTime(60_000);
		expect(idleLocks).toBe(1);

		page.dispatchEvent(new Event('keydown'));
		vi.advanceTimersByTime(4_000);
		expect(idleLocks).toBe(1);
		vi.advanceTimersByTime(1_000);
		expect(idleLocks).toBe(2);
	});

	it('does not lock while another tab of the browser sees activity', () => {
		vi.advanceTimersByTime(4_000);
		storage.setItem(LAST_ACTIVITY_SETTING, String(Date.now()));
		vi.advanceTimersByTime(4_000);
		expect(idleLocks).toBe(0);
		vi.advanceTimersByTime(1_000);
		expect(idleLocks).toBe(1);
	});

	it('tells the other tabs of its own activity, at most once a second', () => {
		vi.advanceTimersByTime(2_000);
		page.dispatchEvent(new Event('pointermove'));
		const told = storage.getItem(LAST_ACTIVITY_SETTING);
		expect(told).toBe(String(START + 2_000));
		vi.advanceTimersByTime(500);
		page.dispatchEvent(new Event('pointermove'));
		expect(storage.getItem(LAST_ACTIVITY_SETTING)).toBe(told);
		vi.advanceTimersByTime(500);
		page.dispatchEvent(new Event('wheel'));
		expect(storage.getItem(LAST_ACTIVITY_SETTING)).toBe(String(START + 3_000));
	});
});

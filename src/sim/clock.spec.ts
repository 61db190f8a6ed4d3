import { describe, expect, it } from 'vitest';
import { SimClock, SimTimers } from './clock';
import { waitFor } from './testing/harness';

describe('SimClock', () => {
	it('is real time by default and follows an offset', () => {
		const clock = new SimClock();
		expect(Math.abs(clock.nowMs() - Date.now())).toBeLessThan(50);
		clock.set({ offsetSeconds: -86_400 });
		expect(Math.abs(clock.nowMs() - (Date.now() - 86_400_000))).toBeLessThan(50);
		expect(clock.read().offsetSeconds).toBeCloseTo(-86_400, 0);
	});

	it('stands still at scale 0 and jumps exactly by advanceSeconds', async () => {
		const clock = new SimClock();
		clock.set({ scale: 0 });
		const frozen = clock.nowMs();
		await new Promise((resolve) => setTimeout(resolve, 20));
		expect(clock.nowMs()).toBe(frozen);
		clock.set({ advanceSeconds: 7200 });
		expect(clock.nowMs()).toBe(frozen + 7_200_000);
		expect(clock.realDelayUntil(frozen + 7_200_001)).toBe(Infinity);
	});

	it('runs faster at a higher scale', async () => {
		const clock = new SimClock();
		clock.set({ scale: 1000 });
		const start = clock.nowMs();
		await new Promise((resolve) => setTimeout(resolve, 20));
		expect(clock.nowMs() - start).toBeGreaterThanOrEqual(15_000);
		clock.set({ scale: 2 });
		const delay = clock.realDelayUntil(clock.nowMs() + 10_000);
		expect(delay).toBeLessThanOrEqual(5000);
		expect(delay).toBeGreaterThan(4000);
	});

	it('signs with real time unless told to use the simulated time', () => {
		const clock = new SimClock();
		clock.set({ offsetSeconds: 1000 });
		expect(Math.abs(clock.signatureNowSeconds() - Date.now() / 1000)).toBeLessThan(2);
		clock.set({ signatureClock: 'simulated' });
		expect(Math.abs(clock.signatureNowSeconds() - (Date.now() / 1000 + 1000))).toBeLessThan(2);
	});
});

describe('SimTimers', () => {
	it('fires only when the simulated clock reaches the due time, in order, and not when cancelled', () => {
		const clock = new SimClock();
		clock.set({ scale: 0 });
		const timers = new SimTimers(clock);
		const fired: string[] = [];
		const now = clock.nowMs();
		timers.at(now + 60_000, () => fired.push('b'));
		timers.at(now + 10_000, () => fired.push('a'));
		const cancel = timers.at(now + 30_000, () => fired.push('cancelled'));
		cancel();
		clock.set({ advanceSeconds: 9 });
		expect(fired).toEqual([]);
		clock.set({ advanceSeconds: 100 });
		expect(fired).toEqual(['a', 'b']);
		expect(timers.pending).toBe(0);
		timers.stop();
	});

	it('follows a change of scale while waiting', async () => {
		const clock = new SimClock();
		const timers = new SimTimers(clock);
		let fired = false;
		timers.at(clock.nowMs() + 3_600_000, () => (fired = true));
		clock.set({ scale: 100_000 });
		expect(await waitFor('the timer', () => fired)).toBe(true);
		timers.stop();
	});
});

import { describe, expect, it } from 'vitest';
import { Throttle } from './throttle';

describe('Throttle', () => {
	it('lets one call through per interval', () => {
		let now = 1000;
		const throttle = new Throttle(4000, () => now);
		expect(throttle.take()).toBe(true);
		now += 1000;
		expect(throttle.take()).toBe(false);
		now += 3000;
		expect(throttle.take()).toBe(true);
		now += 10;
		throttle.reset();
		expect(throttle.take()).toBe(true);
	});
});

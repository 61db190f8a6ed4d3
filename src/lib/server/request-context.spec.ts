import { describe, expect, it } from 'vitest';
import { currentRequest, inRequest, requestIdOf } from './request-context';

describe('the request a line is logged for (docs/inbox-api.md §1 X-Request-Id)', () => {
	it('keeps an incoming id of 1 to 40 visible characters, and makes one for anything else', () => {
		for (const sane of [
			'5f0c3d0e-8a7b-4c1d-9e2f-0a1b2c3d4e5f',
			'Root=1-67891233-abcdef012345678912345678',
			'a',
			'~!"#$%&()*+,-./:;<=>?@[\\]^_`{|}'
		])
			expect(requestIdOf(sane)).toBe(sane);
		const made = new Set<string>();
		for (const insane of [
			undefined,
			null,
			'',
			'x'.repeat(41),
			'has space',
			'tab\there',
			'line\nbreak',
			'é',
			['a', 'b'],
			`sk_live_${'A'.repeat(43)}`
		]) {
			const id = requestIdOf(insane);
			expect(id, String(insane)).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
			made.add(id);
		}
		expect(made.size).toBe(10);
	});

	it('is the one whose work is running, through awaits and timers, and none outside', async () => {
		const seen: (string | undefined)[] = [];
		const work = async () => {
			await new Promise((resolve) => setTimeout(resolve, 1));
			seen.push(currentRequest()?.requestId);
		};
		await Promise.all([inRequest({ requestId: 'one' }, work), inRequest({ requestId: 'two' }, work)]);
		await work();
		expect(seen).toEqual(['one', 'two', undefined]);
	});
});

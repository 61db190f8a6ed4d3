import { describe, expect, it } from 'vitest';
import type { Account } from '../db/accounts';
import { SharedAnswers, viewerKey } from './shared-answers';

const ada: Account = {
	accountId: 'acc_ada',
	username: 'ada',
	displayName: 'Ada',
	role: 'agent',
	agentKeyId: 'agk_1',
	agentPublicKey: 'pk1',
	createdAt: new Date('2026-11-01T00:00:00Z'),
	disabledAt: null,
	roleSince: new Date('2026-11-01T00:00:00Z'),
	roleGrantedBy: null
};

describe('answers shared by the streams of one account (docs/inbox-api.md §7 "Fan-out")', () => {
	it('works an answer out once for every stream that asks, and again after a failure', async () => {
		const answers = new SharedAnswers();
		let worked = 0;
		const view = () => answers.once('view|7|ada', async () => ++worked);
		expect(await Promise.all([view(), view(), view()])).toEqual([1, 1, 1]);
		expect(worked).toBe(1);

		let attempts = 0;
		const flaky = () =>
			answers.once('view|8|ada', async () => {
				attempts++;
				if (attempts === 1) throw new Error('the database hiccuped');
				return 'shown';
			});
		await expect(flaky()).rejects.toThrow('hiccuped');
		expect(await flaky()).toBe('shown');
		expect(attempts).toBe(2);
	});

	it('keys an account by all that decides what it sees: a new key, role or a disabling asks again', () => {
		const keys = new Set([
			viewerKey(ada),
			viewerKey({ ...ada, agentKeyId: 'agk_2', agentPublicKey: 'pk2' }),
			viewerKey({ ...ada, role: 'admin' }),
			viewerKey({ ...ada, disabledAt: new Date() }),
			viewerKey({ ...ada, accountId: 'acc_ben' })
		]);
		expect(keys.size).toBe(5);
		expect(viewerKey({ ...ada })).toBe(viewerKey(ada));
	});

	it('keeps a bounded number of answers: the oldest are worked out again', async () => {
		const answers = new SharedAnswers();
		let worked = 0;
		for (let event = 0; event <= 20_000; event++) await answers.once(`view|${event}|ada`, async () => ++worked);
		expect(worked).toBe(20_001);
		await answers.once('view|20000|ada', async () => ++worked);
		expect(worked).toBe(20_001);
		await answers.once('view|0|ada', async () => ++worked);
		expect(worked).toBe(20_002);
	});
});

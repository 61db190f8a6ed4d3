import { describe, expect, it } from 'vitest';
import { accountRecord } from '$test-support/accounts';
import { SharedAnswers, SharedBatches, viewerKey, type RenderedBatch } from './shared-answers';

const ada = accountRecord({ accountId: 'acc_ada', username: 'ada', role: 'agent', agentKeyId: 'agk_1', agentPublicKey: 'pk1' });

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

describe('batches shared by the streams of one account at one place (docs/inbox-api.md §7 "Fan-out")', () => {
	const rendered = (text: string, lastId: number): RenderedBatch => ({ bytes: new TextEncoder().encode(text), lastId });

	it('renders a run once for every stream of the account at that place, the same bytes for each', async () => {
		const batches = new SharedBatches();
		let worked = 0;
		const ask = () => batches.once('ada|11|40', async () => rendered(`frames ${++worked}`, 40));
		const [first, second, third] = await Promise.all([ask(), ask(), ask()]);
		expect(worked).toBe(1);
		expect(second.bytes).toBe(first.bytes);
		expect(third.bytes).toBe(first.bytes);
		expect(batches.kept).toEqual({ batches: 1, bytes: 'frames 1'.length });
	});

	it('shares one that failed part-way only with the streams already waiting for it: the next asks again', async () => {
		const batches = new SharedBatches();
		let worked = 0;
		const ask = () =>
			batches.once('ada|11|40', async () => ({
				...rendered('first frames', 20),
				...(++worked === 1 ? { failure: new Error('view') } : {})
			}));
		const [one, two] = await Promise.all([ask(), ask()]);
		expect([one.lastId, two.lastId, worked]).toEqual([20, 20, 1]);
		expect(one.failure).toBeInstanceOf(Error);
		expect((await ask()).failure).toBeUndefined();
		expect(worked).toBe(2);
	});

	it('keeps at most 16 MiB of batches, oldest out', async () => {
		const batches = new SharedBatches();
		const megabyte = 'x'.repeat(1024 * 1024);
		for (let place = 0; place < 20; place++) await batches.once(`ada|${place}|${place}`, async () => rendered(megabyte, place));
		expect(batches.kept).toEqual({ batches: 16, bytes: 16 * 1024 * 1024 });
		let worked = 0;
		await batches.once('ada|0|0', async () => rendered(`again ${++worked}`, 0));
		await batches.once('ada|19|19', async () => rendered(`again ${++worked}`, 19));
		expect(worked).toBe(1);
	});
});

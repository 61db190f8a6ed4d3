import { describe, expect, it } from 'vitest';
import { deferred } from '$test-support/deferred';
import { AsyncTask } from './async-task.svelte';

describe('AsyncTask: running, once at a time or the latest', () => {
	it('says which action runs until it settles, and gives its result', async () => {
		const task = new AsyncTask();
		const save = deferred<string>();
		const running = task.run(() => save.promise, 'save');
		expect([task.running, task.current]).toEqual([true, 'save']);
		save.resolve('saved');
		expect(await running).toBe('saved');
		expect([task.running, task.current, task.failure]).toEqual([false, null, null]);
	});

	it('ignores a second start while one runs, so a double click sends once', async () => {
		const task = new AsyncTask();
		const first = deferred<number>();
		let calls = 0;
		const running = task.run(() => (calls++, first.promise), 'first');
		expect(await task.run(async () => (calls++, 2), 'second')).toBeUndefined();
		expect(task.current).toBe('first');
		first.resolve(1);
		expect([await running, calls]).toEqual([1, 1]);
	});

	it('keeps the error of a failed attempt for the page until the next attempt starts', async () => {
		const task = new AsyncTask();
		const refused = new Error('refused');
		expect(await task.run(() => Promise.reject(refused))).toBeUndefined();
		expect([task.running, task.failure]).toEqual([false, refused]);
		const retry = deferred<void>();
		const again = task.run(() => retry.promise);
		expect(task.failure).toBeNull();
		retry.resolve();
		await again;
		expect(task.failure).toBeNull();
	});

	it('lets the latest load supersede a running one: only its result and error count', async () => {
		const task = new AsyncTask();
		const slow = deferred<string>();
		const fast = deferred<string>();
		const earlier = task.latest(() => slow.promise);
		const later = task.latest(() => fast.promise);
		fast.resolve('new filter');
		expect(await later).toBe('new filter');
		expect(task.running).toBe(false);
		slow.reject(new Error('old filter failed'));
		expect(await earlier).toBeUndefined();
		expect([task.running, task.failure]).toEqual([false, null]);

		const stale = deferred<string>();
		const superseded = task.latest(() => stale.promise);
		const current = deferred<string>();
		const running = task.latest(() => current.promise, 'reload');
		stale.resolve('old rows');
		expect(await superseded).toBeUndefined();
		expect(task.current).toBe('reload');
		current.resolve('rows');
		await running;
	});
});

describe('AsyncTask: steps, errors found before a call, and reactivity', () => {
	it('names the step of a running action, and only while it runs', async () => {
		const task = new AsyncTask();
		task.step('signing');
		expect(task.current).toBeNull();
		const confirmed = deferred<void>();
		const running = task.run(async () => {
			task.step('confirming');
			await confirmed.promise;
		}, 'signing');
		expect(task.current).toBe('confirming');
		confirmed.resolve();
		await running;
		expect(task.current).toBeNull();
	});

	it('shows an error found before any call, and forgets it on clear', () => {
		const task = new AsyncTask();
		const invalid = new Error('the name is empty');
		task.fail(invalid);
		expect(task.failure).toBe(invalid);
		task.clear();
		expect(task.failure).toBeNull();
	});

	it('is reactive: an effect sees the state change', async () => {
		const { flushSync } = await import('svelte');
		const seen: boolean[] = [];
		const task = new AsyncTask();
		const stop = $effect.root(() => {
			$effect(() => {
				seen.push(task.running);
			});
		});
		flushSync();
		const done = deferred<void>();
		const running = task.run(() => done.promise);
		flushSync();
		done.resolve();
		await running;
		flushSync();
		stop();
		expect(seen).toEqual([false, true, false]);
	});
});

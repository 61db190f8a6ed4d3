/**
 * The drafts part of the worker's API (docs/crypto-worker.md "Drafts"): writes, removals and the
 * sign-out's clear happen one after the other, so a write under way when the agent signs out lands
 * before the clear, never after it, and a write whose turn comes after a lock writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { deferred } from '$test-support/deferred';
import { createDraftsApi } from './drafts';
import type { WorkerState } from './state';

/** A worker state whose draft store notes what it did, and whose first save waits for `release`. */
function heldState() {
	const done: string[] = [];
	const release = deferred<void>();
	let unlocked = true;
	let saves = 0;
	const state = {
		run: <T>(operation: () => T | Promise<T>) => Promise.resolve().then(operation),
		session: {
			requireUnlocked: () => {
				if (!unlocked) throw Object.assign(new Error('locked'), { code: 'LOCKED' });
			}
		},
		store: {
			drafts: {
				save: async (conversationId: string) => {
					if (++saves === 1) await release.promise;
					done.push(`saved ${conversationId}`);
				},
				remove: async (conversationId: string) => void done.push(`removed ${conversationId}`),
				clear: async () => void done.push('cleared')
			}
		}
	} as unknown as WorkerState;
	return { state, done, release, lock: () => (unlocked = false) };
}

describe('drafts in the worker', () => {
	it('clears at sign-out only once the write under way has landed, so nothing outlives the clear', async () => {
		const { state, done, release, lock } = heldState();
		const drafts = createDraftsApi(state);
		const writing = drafts.saveDraft('conv_a', { text: 'typed just before signing out', mode: 'reply' });
		await new Promise((resolve) => setTimeout(resolve, 0));
		lock();
		const clearing = drafts.clearDrafts();
		await new Promise((resolve) => setTimeout(resolve, 10));
		expect(done).toEqual([]);

		release.resolve();
		await Promise.all([writing, clearing]);
		expect(done).toEqual(['saved conv_a', 'cleared']);
	});

	it('writes nothing for a draft whose turn comes after a lock, and keeps the order of writes and removals', async () => {
		const { state, done, release, lock } = heldState();
		const drafts = createDraftsApi(state);
		const first = drafts.saveDraft('conv_a', { text: 'first', mode: 'reply' });
		const removal = drafts.removeDraft('conv_b');
		const second = drafts.saveDraft('conv_c', { text: 'queued', mode: 'note' });
		await new Promise((resolve) => setTimeout(resolve, 0));
		lock();
		release.resolve();
		await first;
		await removal;
		await expect(second).rejects.toMatchObject({ code: 'LOCKED' });
		expect(done).toEqual(['saved conv_a', 'removed conv_b']);
	});
});

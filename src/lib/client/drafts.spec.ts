import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DraftKeeper, type Draft, type DraftStorage } from './drafts';

/** A storage that records each write, in order, and can be told to refuse. */
function recordingStorage(stored: Draft | null = null) {
	const writes: Array<[string, Draft]> = [];
	let refuse = false;
	const storage: DraftStorage = {
		saveDraft: async (conversationId, draft) => {
			await Promise.resolve();
			if (refuse) throw new Error('storage refused');
			writes.push([conversationId, draft]);
		},
		loadDraft: async () => {
			if (refuse) throw new Error('LOCKED');
			return stored;
		}
	};
	return { storage, writes, refuse: () => (refuse = true) };
}

describe('the draft of the conversation on screen', () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it('loads the stored draft, and none when the storage cannot be read', async () => {
		const stored = recordingStorage({ text: 'Hello', mode: 'note' });
		expect(await new DraftKeeper('conv_a', stored.storage).load()).toEqual({ text: 'Hello', mode: 'note' });
		stored.refuse();
		expect(await new DraftKeeper('conv_a', stored.storage).load()).toBeNull();
	});

	it('writes once typing pauses, only the last text', async () => {
		const { storage, writes } = recordingStorage();
		const keeper = new DraftKeeper('conv_a', storage, 400);
		keeper.changed({ text: 'H', mode: 'reply' });
		await vi.advanceTimersByTimeAsync(300);
		keeper.changed({ text: 'He', mode: 'reply' });
		await vi.advanceTimersByTimeAsync(399);
		expect(writes).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		await keeper.flush();
		expect(writes).toEqual([['conv_a', { text: 'He', mode: 'reply' }]]);
	});

	it('writes at once when the thread closes, after the writes before it, and nothing when nothing changed', async () => {
		const { storage, writes } = recordingStorage();
		const keeper = new DraftKeeper('conv_a', storage, 400);
		keeper.changed({ text: 'first', mode: 'reply' });
		await vi.advanceTimersByTimeAsync(400);
		keeper.changed({ text: '', mode: 'reply' });
		await keeper.flush();
		expect(writes).toEqual([
			['conv_a', { text: 'first', mode: 'reply' }],
			['conv_a', { text: '', mode: 'reply' }]
		]);
		await keeper.flush();
		await vi.advanceTimersByTimeAsync(1000);
		expect(writes).toHaveLength(2);
	});

	it('keeps going after a refused write', async () => {
		const recording = recordingStorage();
		const keeper = new DraftKeeper('conv_a', recording.storage, 400);
		recording.refuse();
		keeper.changed({ text: 'lost', mode: 'reply' });
		await expect(keeper.flush()).resolves.toBeUndefined();
		expect(recording.writes).toEqual([]);
	});
});

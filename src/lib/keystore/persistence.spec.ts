import { describe, expect, it } from 'vitest';
import { requestPersistentStorage } from './persistence';

/** A StorageManager whose answers are given; counts the prompts. */
function storage(answers: { persisted: boolean | Error; persist?: boolean | Error }) {
	let prompts = 0;
	const answer = (value: boolean | Error | undefined) => (value instanceof Error ? Promise.reject(value) : Promise.resolve(value ?? false));
	const manager = {
		persisted: () => answer(answers.persisted),
		persist: () => {
			prompts++;
			return answer(answers.persist);
		}
	} as unknown as StorageManager;
	return { manager, prompts: () => prompts };
}

describe('persistent storage for the key store (docs/crypto-worker.md)', () => {
	it('is persisted without a prompt when it already is, or once the browser grants it', async () => {
		const already = storage({ persisted: true });
		expect(await requestPersistentStorage(already.manager)).toEqual({ state: 'persisted', message: '' });
		expect(already.prompts()).toBe(0);
		const granted = storage({ persisted: false, persist: true });
		expect(await requestPersistentStorage(granted.manager)).toEqual({ state: 'persisted', message: '' });
		expect(granted.prompts()).toBe(1);
	});

	it('tells the user to keep the backup file when refused, failing or unsupported', async () => {
		const refused = await requestPersistentStorage(storage({ persisted: false, persist: false }).manager);
		expect(refused).toEqual({
			state: 'refused',
			message:
				'This browser did not grant persistent storage, so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.'
		});
		expect(await requestPersistentStorage(storage({ persisted: new Error('denied') }).manager)).toEqual(refused);
		expect(await requestPersistentStorage(storage({ persisted: false, persist: new Error('denied') }).manager)).toEqual(refused);
		const unsupported = {
			state: 'unsupported',
			message:
				'This browser cannot keep storage persistent, so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.'
		};
		expect(await requestPersistentStorage(undefined)).toEqual(unsupported);
		expect(await requestPersistentStorage({ persisted: async () => false } as unknown as StorageManager)).toEqual(unsupported);
	});

	it('warns when the browser leaves the question to a prompt nobody answers', async () => {
		const prompt = { persisted: async () => false, persist: () => new Promise<boolean>(() => {}) } as unknown as StorageManager;
		expect(await requestPersistentStorage(prompt, 20)).toEqual({
			state: 'unanswered',
			message:
				'This browser has not granted persistent storage (yet), so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.'
		});
	});
});

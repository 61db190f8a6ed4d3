import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateDeviceKey } from '../keystore/device-key';
import { openKeyStoreDatabase } from '../keystore/schema';
import { SealedSearchIndex } from '../keystore/search-index';
import { indexableMessages, SearchKeeper } from './search';

let databases = 0;

/** A keeper on a key store database of its own, and the raw records behind it. */
async function freshKeeper() {
	const database = await openKeyStoreDatabase(`inbox-search-spec-${++databases}`);
	const deviceKey = await generateDeviceKey();
	const sealed = new SealedSearchIndex(
		async () => database,
		async () => deviceKey
	);
	return { database, sealed, keeper: new SearchKeeper(() => sealed, 50) };
}

const indexed = (messageId: string, text: string, conversationId = 'conv_a') => ({
	messageId,
	conversationId,
	createdAt: '2026-11-26T10:00:00.000Z',
	senderType: 'user' as const,
	text
});

afterEach(() => vi.useRealTimers());

describe('search in the worker (docs/search.md)', () => {
	it('indexes the texts of a decrypted page, a file by its name and caption, and skips failures and unnamed items', () => {
		const item = (messageId?: string) => ({
			encryption: {},
			senderType: 'user' as const,
			messageId,
			createdAt: '2026-11-26T10:00:00.000Z'
		});
		const messages = indexableMessages(
			'conv_a',
			[item('msg_1'), item('msg_2'), item('msg_3'), item(undefined), item('msg_5')],
			[
				{ ok: true, text: 'the lamp' },
				{
					ok: true,
					text: '{}',
					attachment: { attachmentId: 'att_1', name: 'invoice.pdf', mime: 'application/pdf', size: 3, caption: 'for March' } as never
				},
				{ ok: false, code: 'DECRYPT_FAILED', message: 'no' },
				{ ok: true, text: 'no id, not indexed' },
				{ ok: true, text: '' }
			]
		);
		expect(messages.map(({ messageId, text }) => [messageId, text])).toEqual([
			['msg_1', 'the lamp'],
			['msg_2', 'invoice.pdf for March']
		]);
	});

	it('writes the index sealed a moment after it changes, and reads it back after a lock', async () => {
		const { database, keeper } = await freshKeeper();
		expect(await keeper.add([indexed('msg_1', 'the lamp is broken')])).toBe(1);
		await keeper.covered('conv_a', 'msg_1');
		expect(await database.get('search', 'index')).toBeUndefined();
		await vi.waitFor(async () => expect(await database.get('search', 'index')).toBeDefined());
		const [record] = await database.getAll('search');
		expect(record.sealed.ciphertext.byteLength).toBeGreaterThan(100);
		const raw = JSON.stringify(record) + new TextDecoder().decode(record.sealed.ciphertext);
		for (const word of ['lamp', 'broken', 'msg_1', 'conv_a']) expect(raw).not.toContain(word);

		await keeper.lock();
		expect((await keeper.search('lamp')).map((hit) => hit.messageId)).toEqual(['msg_1']);
		expect(await keeper.coverage()).toEqual({ conv_a: 'msg_1' });
		expect(await keeper.size()).toBe(1);
	});

	it('writes what changed when locked, forgets conversations, and keeps nothing after sign-out', async () => {
		const { database, keeper } = await freshKeeper();
		await keeper.add([indexed('msg_1', 'lamp'), indexed('msg_2', 'lamp post', 'conv_b')]);
		await keeper.covered('conv_b', 'msg_2');
		await keeper.lock();
		expect(await database.get('search', 'index')).toBeDefined();
		expect((await keeper.conversations()).sort()).toEqual(['conv_a', 'conv_b']);

		await keeper.forget(['conv_b', 'conv_unknown']);
		await keeper.lock();
		expect((await keeper.search('lamp')).map((hit) => hit.messageId)).toEqual(['msg_1']);
		expect(await keeper.coverage()).toEqual({});

		await keeper.clear();
		expect(await database.count('search')).toBe(0);
		expect(await keeper.search('lamp')).toEqual([]);
	});

	it('starts empty when the stored index does not open here, and deletes it', async () => {
		const { database, sealed, keeper } = await freshKeeper();
		await sealed.save(new TextEncoder().encode('{"not":"an index"}\nnothing'));
		expect(await keeper.search('lamp')).toEqual([]);
		const elsewhere = new SealedSearchIndex(
			async () => database,
			async () => generateDeviceKey()
		);
		await elsewhere.save(new TextEncoder().encode('{}\n{}'));
		expect(await sealed.load()).toBeNull();
		expect(await database.count('search')).toBe(0);
	});

	it('starts again, coverage and all, from an index stored in the former format', async () => {
		const { sealed, keeper } = await freshKeeper();
		const formerIndex = JSON.stringify({
			format: 'inbox-search-index',
			version: 2,
			chunks: {},
			rows: [[1, 'msg_1', 'conv_a', '2026-11-26T10:00:00.000Z', 'user', 'lamp']],
			nextId: 2
		});
		await sealed.save(new TextEncoder().encode(`{"conv_a":"msg_1"}\n${formerIndex}`));
		expect(await keeper.search('lamp')).toEqual([]);
		expect(await keeper.coverage()).toEqual({}); // the history pass indexes every conversation again
		expect(await keeper.add([indexed('msg_1', 'lamp')])).toBe(1);
		expect((await keeper.search('lamp')).map((hit) => hit.messageId)).toEqual(['msg_1']);
	});

	it('indexes a file without a caption by its name alone, and skips an item without a result', () => {
		const item = (messageId: string) => ({ encryption: {}, senderType: 'user' as const, messageId, createdAt: '2026-11-26T10:00:00.000Z' });
		const messages = indexableMessages(
			'conv_a',
			[item('msg_1'), item('msg_2')],
			[{ ok: true, text: '{}', attachment: { attachmentId: 'att_1', name: 'photo.jpg', mime: 'image/jpeg', size: 3 } as never }]
		);
		expect(messages.map(({ text }) => text)).toEqual(['photo.jpg']); // no caption: the name alone; msg_2 has no result
	});

	it('writes only when something changed, once per change', async () => {
		const { sealed, keeper } = await freshKeeper();
		const load = vi.spyOn(sealed, 'load');
		const save = vi.spyOn(sealed, 'save');
		expect(await keeper.add([])).toBe(0);
		expect(load).not.toHaveBeenCalled(); // an empty page does not open the stored index

		await keeper.search('lamp');
		await keeper.flush();
		expect(save).not.toHaveBeenCalled(); // opened, unchanged

		expect(await keeper.add([indexed('msg_1', 'lamp')])).toBe(1);
		await keeper.flush();
		await keeper.flush();
		expect(save).toHaveBeenCalledTimes(1);

		expect(await keeper.add([indexed('msg_1', 'lamp')])).toBe(0); // already indexed
		await keeper.forget(['conv_unknown']);
		await keeper.flush();
		expect(save).toHaveBeenCalledTimes(1);

		await keeper.covered('conv_a', 'msg_1');
		await keeper.flush();
		await keeper.covered('conv_a', 'msg_1'); // the same point
		await keeper.flush();
		expect(save).toHaveBeenCalledTimes(2);
	});

	it('forgetting a conversation with messages but no coverage writes the index without them', async () => {
		const { sealed, keeper } = await freshKeeper();
		await keeper.add([indexed('msg_1', 'lamp'), indexed('msg_2', 'lamp', 'conv_b')]);
		await keeper.flush();
		const save = vi.spyOn(sealed, 'save');
		await keeper.forget(['conv_b']);
		await keeper.lock();
		expect(save).toHaveBeenCalledTimes(1);
		expect((await keeper.search('lamp')).map((hit) => hit.messageId)).toEqual(['msg_1']);
	});

	it('after sign-out, a change made before it is never written back', async () => {
		const { database, keeper } = await freshKeeper();
		await keeper.add([indexed('msg_1', 'lamp')]);
		await keeper.clear();
		expect(await keeper.search('lamp')).toEqual([]);
		await keeper.lock();
		expect(await database.count('search')).toBe(0);
	});
});

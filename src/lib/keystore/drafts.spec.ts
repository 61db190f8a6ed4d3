import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { refusal } from '$test-support/refusal';
import { utf8Encode } from '../crypto/encoding';
import { generateDeviceKey, openForDevice, sealForDevice } from './device-key';
import { draftContext, DraftStore, MAX_DRAFT_CHARACTERS } from './drafts';
import { openKeyStoreDatabase } from './schema';

let stores = 0;

/** A draft store on a database of its own, with the device key it seals under. */
async function freshDrafts() {
	const database = await openKeyStoreDatabase(`inbox-drafts-spec-${++stores}`);
	const deviceKey = await generateDeviceKey();
	return {
		database,
		deviceKey,
		drafts: new DraftStore(
			async () => database,
			async () => deviceKey
		)
	};
}

describe('drafts sealed under the device key (docs/crypto-worker.md "Drafts")', () => {
	it('keeps one draft per conversation, replaces it, and removes it when emptied', async () => {
		const { drafts } = await freshDrafts();
		expect(await drafts.load('conv_a')).toBeNull();
		await drafts.save('conv_a', { text: 'Hello, the lamp', mode: 'reply' });
		await drafts.save('conv_b', { text: 'Called them', mode: 'note' });
		expect(await drafts.load('conv_a')).toEqual({ text: 'Hello, the lamp', mode: 'reply' });
		expect(await drafts.load('conv_b')).toEqual({ text: 'Called them', mode: 'note' });
		await drafts.save('conv_a', { text: 'Hello, the lamp is on its way', mode: 'reply' });
		expect(await drafts.load('conv_a')).toEqual({ text: 'Hello, the lamp is on its way', mode: 'reply' });
		await drafts.save('conv_a', { text: ' \n ', mode: 'reply' });
		expect(await drafts.load('conv_a')).toBeNull();
		expect(await drafts.conversations()).toEqual(['conv_b']);
		await drafts.remove('conv_b');
		expect(await drafts.load('conv_b')).toBeNull();
		expect(await drafts.conversations()).toEqual([]);
	});

	it('stores only ciphertext bound to its conversation', async () => {
		const { database, deviceKey, drafts } = await freshDrafts();
		await drafts.save('conv_a', { text: 'the lamp is broken', mode: 'reply' });
		const record = await database.get('drafts', 'conv_a');
		expect(record?.conversationId).toBe('conv_a');
		expect(record?.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
		expect(JSON.stringify(record)).not.toContain('lamp');
		const opened = await openForDevice(deviceKey, record!.sealed, draftContext('conv_a'));
		expect(JSON.parse(new TextDecoder().decode(opened))).toEqual({ text: 'the lamp is broken', mode: 'reply' });

		// the same record under another conversation's id does not open there, and is dropped
		await database.put('drafts', { ...record!, conversationId: 'conv_b' });
		expect(await drafts.load('conv_b')).toBeNull();
		expect(await database.get('drafts', 'conv_b')).toBeUndefined();
		expect(await drafts.load('conv_a')).toEqual({ text: 'the lamp is broken', mode: 'reply' });
	});

	it('drops a record sealed by another browser or holding something that is not a draft', async () => {
		const { database, deviceKey, drafts } = await freshDrafts();
		const elsewhere = await sealForDevice(await generateDeviceKey(), utf8Encode('{"text":"x","mode":"reply"}'), draftContext('conv_a'));
		await database.put('drafts', { conversationId: 'conv_a', sealed: elsewhere, updatedAt: '2026-11-26T00:00:00.000Z' });
		expect(await drafts.load('conv_a')).toBeNull();
		expect(await database.count('drafts')).toBe(0);

		for (const content of ['not json', '{"text":"x","mode":"shout"}', '{"mode":"reply"}', 'null']) {
			const sealed = await sealForDevice(deviceKey, utf8Encode(content), draftContext('conv_a'));
			await database.put('drafts', { conversationId: 'conv_a', sealed, updatedAt: '2026-11-26T00:00:00.000Z' });
			expect(await drafts.load('conv_a')).toBeNull();
			expect(await database.count('drafts')).toBe(0);
		}
	});

	it('clears every draft at sign-out', async () => {
		const { database, drafts } = await freshDrafts();
		await drafts.save('conv_a', { text: 'one', mode: 'reply' });
		await drafts.save('conv_b', { text: 'two', mode: 'note' });
		await drafts.clear();
		expect(await database.count('drafts')).toBe(0);
	});

	it('refuses what is not a draft or not a conversation id, and stores nothing then', async () => {
		const { database, drafts } = await freshDrafts();
		expect(await refusal(drafts.save('conv a', { text: 'x', mode: 'reply' }))).toEqual({
			code: 'INVALID_INPUT',
			message: expect.stringMatching(/^conversationId must match/)
		});
		for (const refused of [drafts.load('a b'), drafts.remove('a b')]) {
			expect(await refusal(refused)).toEqual({ code: 'INVALID_INPUT', message: expect.stringMatching(/^conversationId must match/) });
		}
		expect(await refusal(drafts.save('conv_a', null))).toEqual({
			code: 'INVALID_INPUT',
			message: 'a draft must be an object with text and mode'
		});
		expect(await refusal(drafts.save('conv_a', { text: 3, mode: 'reply' }))).toEqual({
			code: 'INVALID_INPUT',
			message: 'draft text must be a string'
		});
		expect(await refusal(drafts.save('conv_a', { text: 'x', mode: 'shout' }))).toEqual({
			code: 'INVALID_INPUT',
			message: 'draft mode must be reply or note'
		});
		expect(await refusal(drafts.save('conv_a', { text: 'x'.repeat(MAX_DRAFT_CHARACTERS + 1), mode: 'reply' }))).toEqual({
			code: 'INVALID_INPUT',
			message: `draft text must be at most ${MAX_DRAFT_CHARACTERS} characters`
		});
		await drafts.save('conv_a', { text: 'x'.repeat(MAX_DRAFT_CHARACTERS), mode: 'reply' });
		expect((await drafts.load('conv_a'))?.text).toHaveLength(MAX_DRAFT_CHARACTERS);
		expect(await refusal(drafts.load('../x'))).toMatchObject({ code: 'INVALID_INPUT' });
		expect(await refusal(drafts.remove('../x'))).toMatchObject({ code: 'INVALID_INPUT' });
		expect(await database.count('drafts')).toBe(1);
	});
});

import { describe, expect, it } from 'vitest';
import type { HistoryItem } from '../wire/v1-records';
import { itemsToDecrypt, mergeMessages, replaceMessage, shownMessageIds, toThreadMessage, type ThreadMessage } from './thread-messages';

function item(seq: number, extra: Partial<HistoryItem> = {}): HistoryItem {
	return {
		messageId: `msg_${seq}`,
		conversationId: 'conv_1',
		seq,
		senderType: 'user',
		contentType: 'text',
		encryption: { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: `usr_${seq}`, nonce: 'n', ciphertext: 'c' },
		attachment: null,
		createdAt: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
		...extra
	};
}

const stored = (seq: number, text = `text ${seq}`): ThreadMessage => toThreadMessage(item(seq), { ok: true, text }, (code) => code);

describe('itemsToDecrypt', () => {
	it('skips unknown content types and messages already shown', () => {
		const items = [item(1), item(2, { contentType: 'sticker' }), item(3, { contentType: 'attachment' })];
		expect(itemsToDecrypt(items, new Set(['msg_1'])).map((i) => i.messageId)).toEqual(['msg_3']);
	});

	it('tries again a message that failed before', () => {
		const failed = toThreadMessage(item(1), { ok: false, code: 'DECRYPT_FAILED', message: 'x' }, (code) => `explained ${code}`);
		expect(failed.problem).toEqual({ code: 'DECRYPT_FAILED', message: 'explained DECRYPT_FAILED' });
		expect(failed.text).toBeUndefined();
		expect(shownMessageIds([failed, stored(2)])).toEqual(new Set(['msg_2']));
	});
});

describe('toThreadMessage', () => {
	it('tells the sides apart by senderType', () => {
		expect(stored(1).state).toBe('received');
		const company = toThreadMessage(item(2, { senderType: 'company' }), { ok: true, text: 'hi' }, (code) => code);
		expect(company).toMatchObject({ senderType: 'company', state: 'sent', text: 'hi', clientMessageId: 'usr_2' });
	});
});

describe('mergeMessages', () => {
	it('orders by seq and keeps one copy per messageId', () => {
		const merged = mergeMessages([stored(3), stored(1)], [stored(2), stored(3, 'again')]);
		expect(merged.map((m) => m.seq)).toEqual([1, 2, 3]);
	});

	it('replaces a local send by its stored copy and keeps local sends last', () => {
		const local: ThreadMessage = {
			key: 'local_1',
			messageId: null,
			seq: null,
			senderType: 'company',
			contentType: 'text',
			createdAt: '2026-01-01T00:01:00Z',
			state: 'failed',
			text: 'mine',
			clientMessageId: 'srv_a'
		};
		const pending: ThreadMessage = { ...local, key: 'local_2', clientMessageId: 'srv_b', text: 'still pending' };
		const storedCopy = toThreadMessage(
			item(2, { senderType: 'company', encryption: { ...item(2).encryption, clientMessageId: 'srv_a' } }),
			{ ok: true, text: 'mine' },
			(code) => code
		);
		const merged = mergeMessages([stored(1), local, pending], [storedCopy]);
		expect(merged.map((m) => [m.key, m.state])).toEqual([
			['msg_1', 'received'],
			['msg_2', 'sent'],
			['local_2', 'failed']
		]);
	});
});

describe('replaceMessage', () => {
	it('changes the message of that key only, or leaves it out, and keeps the order', () => {
		const messages = [stored(1), stored(2), stored(3)];
		expect(replaceMessage(messages, 'msg_2', (message) => ({ ...message, state: 'failed' })).map((m) => [m.key, m.state])).toEqual([
			['msg_1', 'received'],
			['msg_2', 'failed'],
			['msg_3', 'received']
		]);
		expect(replaceMessage(messages, 'msg_1', () => null).map((m) => m.key)).toEqual(['msg_2', 'msg_3']);
		expect(replaceMessage(messages, 'msg_9', () => null)).toEqual(messages);
	});
});

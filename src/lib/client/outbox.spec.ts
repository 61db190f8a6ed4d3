import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '$test-support/memory-storage';
import { Outbox, type PendingSend } from './outbox';

const envelope = { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: 'srv_x', nonce: 'n', ciphertext: 'c' } as const;

function entry(localId: string, conversationId = 'conv_1'): PendingSend {
	return {
		localId,
		conversationId,
		idempotencyKey: `send_${localId}`,
		contentType: 'text',
		encryption: { ...envelope },
		createdAt: '2026-01-01T00:00:00Z'
	};
}

describe('Outbox', () => {
	it('keeps the exact envelope and key across instances (a reload)', () => {
		const storage = new MemoryStorage();
		new Outbox('acc_1', storage).put(entry('a'));
		const reloaded = new Outbox('acc_1', storage);
		expect(reloaded.list('conv_1')).toEqual([entry('a')]);
		expect(new Outbox('acc_2', storage).list()).toEqual([]);
	});

	it('replaces by localId, filters by conversation and removes', () => {
		const outbox = new Outbox('acc_1', new MemoryStorage());
		outbox.put(entry('a'));
		outbox.put(entry('b', 'conv_2'));
		outbox.put({ ...entry('a'), idempotencyKey: 'send_other' });
		expect(outbox.list().map((item) => [item.localId, item.idempotencyKey])).toEqual([
			['b', 'send_b'],
			['a', 'send_other']
		]);
		expect(outbox.list('conv_2').map((item) => item.localId)).toEqual(['b']);
		outbox.remove('b');
		outbox.remove('a');
		expect(outbox.list()).toEqual([]);
	});

	it('ignores damaged storage instead of failing', () => {
		const storage = new MemoryStorage();
		storage.setItem('inbox:outbox:acc_1', '{not json');
		expect(new Outbox('acc_1', storage).list()).toEqual([]);
		storage.setItem('inbox:outbox:acc_1', JSON.stringify([{ localId: 1 }, entry('ok')]));
		expect(new Outbox('acc_1', storage).list().map((item) => item.localId)).toEqual(['ok']);
	});
});

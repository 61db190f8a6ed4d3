import 'fake-indexeddb/auto';
import { expose } from 'comlink';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeChunkWorkerPool, type NodeChunkWorkers } from '$test-support/node-chunk-workers';
import { ContractError } from '../errors';
import { createWorkerApi } from './api';
import { connectCryptoWorker, type CryptoWorkerClient, type CryptoWorkerOptions } from './client';
import type { Progress } from './types';

const pools: NodeChunkWorkers[] = [];
const ports: MessagePort[] = [];

afterAll(() => {
	for (const pool of pools) pool.terminate();
	for (const port of ports) port.close();
});

/** The worker's API run in this process behind a MessageChannel, where a Worker's messages would cross, and the page's client of it. */
function connect(options: CryptoWorkerOptions): CryptoWorkerClient {
	const { port1, port2 } = new MessageChannel();
	ports.push(port1, port2);
	expose(createWorkerApi({ startChunkWorkers: (size) => pools[pools.push(nodeChunkWorkerPool(size)) - 1] }), port1);
	return connectCryptoWorker(Object.assign(port2, { terminate: () => port1.close() }), options);
}

/** A byte stream that gives `bytes`, then breaks as a cut connection does. */
function breakingStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
	let sent = false;
	return new ReadableStream({
		pull(controller) {
			if (sent) return controller.error(new TypeError('network error'));
			sent = true;
			controller.enqueue(bytes);
		}
	});
}

describe('the page’s client of the crypto worker (docs/crypto-worker.md)', () => {
	const client = connect({ accountId: 'acc_clientSpec', chunkWorkers: 2 });

	it('calls what the interface declares in the worker; a ContractError arrives with its code', async () => {
		await client.ready();
		await expect(client.unlock('agent', 'a passphrase of this page')).rejects.toMatchObject({
			name: 'ContractError',
			code: 'KEY_NOT_FOUND'
		});
		const key = await client.createAgentKey('a passphrase of this page');
		expect(key.handle).toMatch(/^key_/);
		expect((await client.status()).agent).toMatchObject({ publicKey: key.publicKey, unlocked: true });
		const reply = client.encryptReply('conv_clientSpec', 'hello', 1);
		await expect(reply).rejects.toBeInstanceOf(ContractError);
		await expect(reply).rejects.toMatchObject({ code: 'CONVERSATION_KEY_NOT_OPEN' });
	});

	it('refuses at once a name the interface does not declare, and the decryption steps that are the client’s own', () => {
		const loose = client as unknown as Record<string, unknown>;
		for (const name of ['decryptMessage', 'pushAttachmentPiece', 'beginAttachmentDecryption', 'toJSON']) {
			expect(() => loose[name], name).toThrow(new TypeError(`the crypto worker's API has no method "${name}" (src/lib/crypto-worker/api)`));
		}
		expect(typeof loose.status).toBe('function');
	});

	it('unlocks a second tab of the browser session with the session share, and only while one is kept (docs/crypto-worker.md "Unlock once per browser session")', async () => {
		const firstTab = connect({ accountId: 'acc_unlockOnce', chunkWorkers: 1 });
		const secondTab = connect({ accountId: 'acc_unlockOnce', chunkWorkers: 1 });
		const created = await firstTab.createAgentKey('correct horse battery');
		const share = 'c2Vzc2lvbi1zaGFyZS1vZi0zMi1ieXRlcy0wMTIzNDU';
		await firstTab.rememberUnlock(created.handle, share);
		const resumed = await secondTab.resumeUnlock(share);
		expect(resumed).toMatchObject({ publicKey: created.publicKey, agentKeyId: created.agentKeyId });
		expect(resumed?.handle).not.toBe(created.handle);
		expect((await secondTab.status()).agent?.unlocked).toBe(true);

		await firstTab.forgetUnlock();
		const thirdTab = connect({ accountId: 'acc_unlockOnce', chunkWorkers: 1 });
		expect(await thirdTab.resumeUnlock(share)).toBeNull();
		expect((await thirdTab.status()).agent?.unlocked).toBe(false);
		await expect(firstTab.rememberUnlock('key_unknown', share)).rejects.toMatchObject({ code: 'LOCKED' });
		await expect(firstTab.rememberUnlock(created.handle, 'too-short')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		for (const tab of [firstTab, secondTab, thirdTab]) tab.terminate();
	});

	it('is no thenable, so a promise of it gives the client itself', async () => {
		expect(await Promise.resolve(client)).toBe(client);
	});

	it('encrypts a file with its progress and decrypts the download back; an HTTP error or a broken download is DECRYPT_FAILED', async () => {
		const bytes = Uint8Array.from({ length: 200_000 }, (_, index) => (index * 7) % 256);
		const uploaded: Progress[] = [];
		const { ciphertext, meta } = await client.encryptAttachment(
			new Blob([bytes]),
			{ attachmentId: 'att_clientSpec', name: 'a.bin' },
			{
				onProgress: (progress) => uploaded.push(progress)
			}
		);
		expect(ciphertext).toBeInstanceOf(ArrayBuffer);
		expect(uploaded.at(-1)).toEqual({ done: bytes.length, total: bytes.length });
		expect(meta).not.toHaveProperty('key');

		const downloaded: Progress[] = [];
		const { blob } = await client.decryptAttachmentStream(new Response(ciphertext.slice(0)), meta, {
			onProgress: (progress) => downloaded.push(progress)
		});
		expect(new Uint8Array(await blob.arrayBuffer())).toEqual(bytes);
		expect(downloaded.at(-1)).toEqual({ done: ciphertext.byteLength, total: ciphertext.byteLength });

		await expect(client.decryptAttachmentStream(new Response('gone', { status: 410 }), meta)).rejects.toMatchObject({
			code: 'DECRYPT_FAILED',
			status: 410
		});
		const broken = client.decryptAttachmentStream(breakingStream(new Uint8Array(ciphertext, 0, 1000)), meta);
		await expect(broken).rejects.toBeInstanceOf(ContractError);
		await expect(broken).rejects.toMatchObject({ code: 'DECRYPT_FAILED', message: 'attachment: the download broke off: network error' });
	});

	it('fails every call after a refused account, but for selecting another; after terminate every call fails', async () => {
		const refused = connect({ accountId: 'not an id' });
		await expect(refused.status()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		await expect(refused.lock()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		await refused.selectAccount('acc_clientSpecOther');
		refused.terminate();
		await expect(refused.selectAccount(null)).rejects.toThrow('the crypto worker was terminated');
	});
});

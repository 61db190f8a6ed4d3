/**
 * The crypto worker in Chromium: the public vectors through the worker client with the
 * shared runner, error codes across comlink, history, replies, attachments, signatures.
 */
import { expect, test, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import {
	attachmentCiphertextLength,
	b64uDecode,
	b64uEncode,
	buildAttachmentMeta,
	decryptAttachment,
	decryptMessage,
	encryptAttachment,
	encryptMessage,
	initCrypto,
	sealConversationKey,
	type AttachmentMeta,
	type Envelope
} from '../src/lib/crypto/index';
import { attachmentPattern, conformanceCases, type ConformanceReport } from '../src/lib/conformance/runner';
import type { AttachmentInfo } from '../src/lib/crypto-worker/types';
import { listenAsTestStorage } from './support/global-setup';
import { call, failureCode, openHarness, succeed } from './support/harness';

const vectors = JSON.parse(readFileSync(new URL('../vectors/conformance.json', import.meta.url), 'utf8'));

test.describe('the public conformance vectors inside the worker', () => {
	let report: ConformanceReport;

	test.beforeAll(async ({ browser }) => {
		const page = await browser.newPage();
		await openHarness(page);
		report = await page.evaluate((content) => window.cryptoHarness.runVectors(content), vectors);
		await page.close();
	});

	test('all 99 cases ran', () => {
		expect(report.total).toBe(99);
	});

	for (const testCase of conformanceCases(vectors)) {
		test(`${testCase.group}: ${testCase.name}`, () => {
			const result = report.results.find((r) => r.group === testCase.group && r.name === testCase.name);
			expect(result, 'case missing from the report').toBeDefined();
			expect(result!.ok, result!.detail).toBe(true);
		});
	}
});

const PASSPHRASE = 'correct horse battery staple';

/** An unlocked agent in the page and a conversation whose key K is sealed for it. */
async function agentWithConversation(page: Page, conversationId = 'conv_workerTest0001') {
	const agent = await succeed<{ handle: string; publicKey: string }>(page, 'createAgentKey', PASSPHRASE);
	const conversationKey = crypto.getRandomValues(new Uint8Array(32));
	const wrap = sealConversationKey({ conversationKey, conversationId, keyVersion: 1, recipientPublicKey: b64uDecode(agent.publicKey) });
	await succeed(page, 'openConversationKey', agent.handle, conversationId, wrap);
	return { agent, conversationId, conversationKey, wrap };
}

test.describe('the worker API in Chromium', () => {
	test.beforeAll(async () => {
		await initCrypto();
	});

	test.beforeEach(async ({ page }) => {
		await openHarness(page);
	});

	test('a ContractError thrown in the worker arrives as a ContractError with its code', async ({ page }) => {
		const outcome = await call(page, 'decryptHistory', 'conv with spaces', []);
		expect(outcome).toMatchObject({ ok: false, name: 'ContractError', code: 'INVALID_INPUT', contractError: true });
		expect(outcome.ok ? '' : outcome.message).toMatch(/conversationId must match/);
		expect(await failureCode(page, 'decryptHistory', 'conv_neverOpened', [])).toBe('LOCKED');
	});

	test('a page of history decrypts in one call, each item giving its text or its own error code', async ({ page }) => {
		const { conversationId, conversationKey } = await agentWithConversation(page);
		const envelope = (senderType: 'user' | 'company', text: string, clientMessageId: string) =>
			encryptMessage({ conversationKey, conversationId, senderType, clientMessageId, keyVersion: 1, text });
		const meta = (attachmentId: string) =>
			buildAttachmentMeta({
				attachmentId,
				name: 'photo.jpg',
				mime: 'image/jpeg',
				size: 3,
				encryption: encryptAttachment(new Uint8Array([1, 2, 3]), { attachmentId })
			});
		const tampered: Envelope = { ...envelope('user', 'tampered', 'usr_3') };
		tampered.ciphertext = (tampered.ciphertext[0] === 'A' ? 'B' : 'A') + tampered.ciphertext.slice(1);
		const items = [
			{ encryption: envelope('user', 'hello', 'usr_1'), senderType: 'user' },
			{ encryption: envelope('company', 'hi, how can I help?', 'srv_1'), senderType: 'company' },
			{ encryption: tampered, senderType: 'user' },
			{ encryption: { ...envelope('user', 'v2', 'usr_4'), v: 2 }, senderType: 'user' },
			{ encryption: envelope('company', 'relabelled', 'srv_2'), senderType: 'user' },
			{
				encryption: envelope('user', JSON.stringify(meta('att_photo000001')), 'usr_5'),
				senderType: 'user',
				contentType: 'attachment',
				attachment: { attachmentId: 'att_photo000001' }
			},
			{
				encryption: envelope('user', JSON.stringify(meta('att_photo000002')), 'usr_6'),
				senderType: 'user',
				contentType: 'attachment',
				attachment: { attachmentId: 'att_other000003' }
			}
		];
		const results = await succeed<Array<{ ok: boolean; text?: string; code?: string; attachment?: AttachmentInfo }>>(
			page,
			'decryptHistory',
			conversationId,
			items
		);
		expect(results.map((r) => (r.ok ? r.text : r.code))).toEqual([
			'hello',
			'hi, how can I help?',
			'DECRYPT_FAILED',
			'UNSUPPORTED_VERSION',
			'DECRYPT_FAILED',
			'',
			'KEY_MISMATCH'
		]);
		// The page gets the public fields and a sealed reference: F, the nonce base and the digest stay in the worker.
		expect(results[5].attachment).toMatchObject({ attachmentId: 'att_photo000001', name: 'photo.jpg', size: 3, ref: expect.any(String) });
		expect(Object.keys(results[5].attachment!).filter((field) => ['key', 'nonce', 'digest'].includes(field))).toEqual([]);
	});

	test('a reply is encrypted as the company with a fresh nonce and a srv_ id, and the keyVersion must match', async ({ page }) => {
		const { conversationId, conversationKey } = await agentWithConversation(page);
		const first = await succeed<Envelope>(page, 'encryptReply', conversationId, 'Thanks, we are on it.', 1);
		const second = await succeed<Envelope>(page, 'encryptReply', conversationId, 'Thanks, we are on it.', 1);
		expect(first).toMatchObject({ v: 1, scheme: 'sc1', keyVersion: 1 });
		expect(first.clientMessageId).toMatch(/^srv_[A-Za-z0-9_-]{22}$/);
		expect(second.clientMessageId).not.toBe(first.clientMessageId);
		expect(second.nonce).not.toBe(first.nonce);
		expect(decryptMessage(first, { conversationKey, conversationId, senderType: 'company' })).toBe('Thanks, we are on it.');
		expect(() => decryptMessage(first, { conversationKey, conversationId, senderType: 'user' })).toThrow(/does not authenticate/);
		expect(await failureCode(page, 'encryptReply', conversationId, 'wrong version', 2)).toBe('KEY_MISMATCH');
		expect(await failureCode(page, 'encryptReply', 'conv_notOpenedHere', 'hello', 1)).toBe('CONVERSATION_KEY_NOT_OPEN');
		expect(await failureCode(page, 'encryptReply', conversationId, 'x'.repeat(65_537), 1)).toBe('INVALID_INPUT');
	});

	test('conversation keys: a batch of wraps gives each its outcome, and the cache keeps the 1,000 most recent', async ({ page }) => {
		const agent = await succeed<{ handle: string; publicKey: string }>(page, 'createAgentKey', PASSPHRASE);
		const recipientPublicKey = b64uDecode(agent.publicKey);
		const conversations = Array.from({ length: 1001 }, (_, i) => {
			const conversationId = `conv_lru${String(i).padStart(5, '0')}`;
			const conversationKey = crypto.getRandomValues(new Uint8Array(32));
			return {
				conversationId,
				conversationKey,
				wrap: sealConversationKey({ conversationKey, conversationId, keyVersion: 1, recipientPublicKey })
			};
		});
		const mixed = await succeed<Array<{ ok: boolean; code?: string }>>(page, 'openConversationKeys', agent.handle, [
			{ conversationId: 'conv_lru00000', wrap: conversations[0].wrap },
			{ conversationId: 'conv_lru99999', wrap: conversations[1].wrap },
			{ conversationId: 'conv_lru00002', wrap: { keyVersion: 1, sealed: 'not base64url!' } }
		]);
		expect(mixed.map((r) => (r.ok ? 'ok' : r.code))).toEqual(['ok', 'KEY_MISMATCH', 'INVALID_INPUT']);

		const opened = await succeed<Array<{ ok: boolean }>>(
			page,
			'openConversationKeys',
			agent.handle,
			conversations.map(({ conversationId, wrap }) => ({ conversationId, wrap }))
		);
		expect(opened.every((r) => r.ok)).toBe(true);
		const probe = (index: number) => {
			const { conversationId, conversationKey } = conversations[index];
			const encryption = encryptMessage({
				conversationKey,
				conversationId,
				senderType: 'user',
				clientMessageId: 'usr_probe',
				keyVersion: 1,
				text: `probe ${index}`
			});
			return call(page, 'decryptHistory', conversationId, [{ encryption, senderType: 'user' }]);
		};
		expect(await probe(0)).toMatchObject({ ok: false, code: 'CONVERSATION_KEY_NOT_OPEN' });
		expect(await probe(1)).toEqual({ ok: true, value: [{ ok: true, text: 'probe 1' }] });
		expect(await probe(1000)).toEqual({ ok: true, value: [{ ok: true, text: 'probe 1000' }] });
	});

	test('a File is encrypted for upload in the worker with progress; the ciphertext comes back as an ArrayBuffer', async ({ page }) => {
		const { conversationId, conversationKey } = await agentWithConversation(page);
		// Over three progress steps (256 KiB each): reports come as the bytes are consumed, however the File is streamed.
		const plaintext = attachmentPattern(1_000_000);
		const encrypted = await page.evaluate(
			([bytes]) => window.cryptoHarness.encryptBytes(bytes, 'report.pdf', 'application/pdf', { attachmentId: 'att_upload0000001' }),
			[b64uEncode(plaintext)]
		);
		if (!encrypted.ok) throw new Error(`${encrypted.code} ${encrypted.message}`);
		expect(encrypted.isArrayBuffer).toBe(true);
		const ciphertext = b64uDecode(encrypted.ciphertext);
		expect(ciphertext.length).toBe(attachmentCiphertextLength(plaintext.length));
		expect(encrypted.meta).toMatchObject({
			v: 1,
			kind: 'attachment',
			attachmentId: 'att_upload0000001',
			name: 'report.pdf',
			mime: 'application/pdf',
			size: 1_000_000
		});
		expect(Object.keys(encrypted.meta).filter((field) => ['key', 'nonce', 'digest'].includes(field))).toEqual([]);
		// The worker makes the attachment message of the reference; the receiver decrypts the file with the meta in it.
		const message = await succeed<Envelope>(page, 'encryptAttachmentMessage', conversationId, encrypted.meta.ref, 1);
		const meta = JSON.parse(decryptMessage(message, { conversationKey, conversationId, senderType: 'company' }));
		const { ref: _ref, ...visible } = encrypted.meta;
		expect(meta).toMatchObject({ ...visible, key: expect.any(String), nonce: expect.any(String), digest: expect.any(String) });
		expect(decryptAttachment(ciphertext, meta)).toEqual(plaintext);
		const done = encrypted.progress.map((p) => p.done);
		expect(done.length).toBeGreaterThan(1);
		expect(done).toEqual([...done].sort((a, b) => a - b));
		expect(encrypted.progress.at(-1)).toEqual({ done: 1_000_000, total: 1_000_000 });

		const refused = await page.evaluate(() =>
			window.cryptoHarness.encryptBytes('AAEC', 'x', 'text/plain', { attachmentId: 'att_upload0000002', name: '../x' })
		);
		expect(refused).toMatchObject({ ok: false, code: 'INVALID_INPUT', contractError: true, progress: [] });
	});
});

test.describe('a 25 MiB attachment decrypted through the streamed path', () => {
	const size = 26_214_400;
	const attachmentId = 'att_streamedTest01';
	let server: Server;
	let base: string;
	let meta: AttachmentMeta;
	let plaintextSha256: string;

	test.beforeAll(async () => {
		await initCrypto();
		const plaintext = attachmentPattern(size);
		plaintextSha256 = createHash('sha256').update(plaintext).digest('hex');
		const encryption = encryptAttachment(plaintext, { attachmentId });
		meta = buildAttachmentMeta({ attachmentId, name: 'big.bin', mime: 'application/octet-stream', size, encryption });
		const tampered = encryption.ciphertext.slice();
		tampered[size - 1000] ^= 1;
		const bodies: Record<string, Uint8Array> = {
			'/ciphertext': encryption.ciphertext,
			'/tampered': tampered,
			'/truncated': encryption.ciphertext.subarray(0, encryption.ciphertext.length - 1)
		};
		server = createServer((request, response) => {
			const body = bodies[request.url ?? ''];
			response.setHeader('Access-Control-Allow-Origin', '*');
			if (!body) return response.writeHead(404).end();
			response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length }).end(body);
		});
		base = await listenAsTestStorage(server);
	});

	test.afterAll(async () => {
		await new Promise((resolve) => server?.close(resolve));
	});

	test.beforeEach(async ({ page }) => {
		await openHarness(page);
	});

	test('it decrypts while the page keeps rendering frames, and the Blob matches the file', async ({ page }) => {
		const result = await page.evaluate(([url, m]) => window.cryptoHarness.decryptFromUrl(url, m), [`${base}/ciphertext`, meta] as const);
		if (!result.ok) throw new Error(`${result.code} ${result.message}`);
		expect(result).toMatchObject({ size, type: 'application/octet-stream', sha256: plaintextSha256 });
		const { progress } = result;
		expect(progress.length).toBeGreaterThan(10);
		expect(progress.at(-1)).toMatchObject({ done: attachmentCiphertextLength(size), total: attachmentCiphertextLength(size) });
		// requestAnimationFrame kept firing between the first and the last chunk decrypted in the worker.
		expect(progress.at(-1)!.frame - progress[0].frame).toBeGreaterThanOrEqual(2);
	});

	test('a tampered copy yields DECRYPT_FAILED and no Blob', async ({ page }) => {
		const result = await page.evaluate(([url, m]) => window.cryptoHarness.decryptFromUrl(url, m), [`${base}/tampered`, meta] as const);
		expect(result).toMatchObject({ ok: false, code: 'DECRYPT_FAILED', contractError: true });
		expect(result).not.toHaveProperty('sha256');
	});

	test('a truncated download, a wrong announced size or an HTTP error yield DECRYPT_FAILED', async ({ page }) => {
		const truncated = await page.evaluate(([url, m]) => window.cryptoHarness.decryptFromUrl(url, m), [`${base}/truncated`, meta] as const);
		expect(truncated).toMatchObject({ ok: false, code: 'DECRYPT_FAILED', contractError: true });
		const announced = await page.evaluate(([url, m]) => window.cryptoHarness.decryptFromUrl(url, m, { ciphertextSize: 16 }), [
			`${base}/ciphertext`,
			meta
		] as const);
		expect(announced).toMatchObject({ ok: false, code: 'DECRYPT_FAILED', contractError: true });
		const missing = await page.evaluate(([url, m]) => window.cryptoHarness.decryptFromUrl(url, m), [`${base}/missing`, meta] as const);
		expect(missing).toMatchObject({ ok: false, code: 'DECRYPT_FAILED', contractError: true });
		expect(missing.ok ? '' : missing.message).toMatch(/HTTP 404/);
	});
});

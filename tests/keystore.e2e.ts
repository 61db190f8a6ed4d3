/**
 * The key store in Chromium: create → reload → unlock, wrong passphrase, lock wipes,
 * change of passphrase, backup export and import, the admin's signing key, delete, and scans of
 * IndexedDB and of the browser profile on disk proving that no secret key is stored in clear.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import {
	b64uEncode,
	encryptMessage,
	formatKeyFile,
	generateEd25519KeyPair,
	initCrypto,
	sealConversationKey,
	verifyRoster,
	verifyRotation,
	x25519PublicKey
} from '../src/lib/crypto/index';
import { call, failureCode, openHarness, succeed } from './support/harness';
import { leaks, openBackup } from './support/secrets';

const PASSPHRASE = 'correct horse battery staple';
const NEW_PASSPHRASE = 'tr0ub4dor & 3, but longer';

test.beforeAll(async () => {
	await initCrypto();
});

test.beforeEach(async ({ page }) => {
	await openHarness(page);
});

const keyRecords = (page: Page) =>
	page.evaluate(async () =>
		(await window.cryptoHarness.dumpIndexedDb()).filter((entry) => entry.store === 'keys').flatMap((entry) => entry.records)
	);

interface Unlocked {
	handle: string;
	kind: string;
	publicKey: string;
	fingerprint: string;
	agentKeyId?: string;
	createdAt: string;
}

/** A conversation whose key is sealed for `agentPublicKey`, with one user message. */
function conversationFor(agentPublicKey: string, conversationId = 'conv_keystoreTest01') {
	const conversationKey = new Uint8Array(32).map((_, i) => i + 1);
	const wrap = sealConversationKey({
		conversationKey,
		conversationId,
		keyVersion: 1,
		recipientPublicKey: new Uint8Array(Buffer.from(agentPublicKey, 'base64url'))
	});
	const encryption = encryptMessage({
		conversationKey,
		conversationId,
		senderType: 'user',
		clientMessageId: 'usr_hello',
		keyVersion: 1,
		text: 'hello agent'
	});
	return { conversationId, wrap, items: [{ encryption, senderType: 'user' }] };
}

test('create an agent key, reload the page, unlock it with the passphrase', async ({ page }) => {
	expect(await succeed(page, 'status')).toEqual({ agent: null, signing: null });
	const created = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	expect(created.kind).toBe('agent');
	expect(created.agentKeyId).toMatch(/^agk_[A-Za-z0-9_-]{16}$/);
	expect(Buffer.from(created.publicKey, 'base64url')).toHaveLength(32);
	expect(created.fingerprint).toMatch(/^[0-9a-f]{4}( [0-9a-f]{4}){15}$/);
	expect(created.handle).toMatch(/^key_/);
	expect(created).not.toHaveProperty('secretKey');
	expect(await failureCode(page, 'createAgentKey', PASSPHRASE)).toBe('KEY_EXISTS');

	await openHarness(page);
	const status = await succeed<{ agent: Unlocked & { unlocked: boolean } }>(page, 'status');
	expect(status.agent).toMatchObject({ publicKey: created.publicKey, agentKeyId: created.agentKeyId, unlocked: false });
	const { wrap, conversationId } = conversationFor(created.publicKey);
	expect(await failureCode(page, 'openConversationKey', created.handle, conversationId, wrap)).toBe('LOCKED');

	const unlocked = await succeed<Unlocked>(page, 'unlock', 'agent', PASSPHRASE);
	expect(unlocked).toMatchObject({ publicKey: created.publicKey, agentKeyId: created.agentKeyId, createdAt: created.createdAt });
	expect(await succeed(page, 'openConversationKey', unlocked.handle, conversationId, wrap)).toEqual({ conversationId, keyVersion: 1 });
	expect((await succeed<{ agent: { unlocked: boolean } }>(page, 'status')).agent.unlocked).toBe(true);
});

test('a new passphrase must be at least 8 characters', async ({ page }) => {
	expect(await failureCode(page, 'createAgentKey', 'short')).toBe('INVALID_INPUT');
	expect(await keyRecords(page)).toEqual([]);
});

test('a wrong passphrase is refused with WRONG_PASSPHRASE and changes nothing', async ({ page }) => {
	await succeed(page, 'createAgentKey', PASSPHRASE);
	await openHarness(page);
	const before = await keyRecords(page);
	expect(await failureCode(page, 'unlock', 'agent', 'not the passphrase')).toBe('WRONG_PASSPHRASE');
	expect(await keyRecords(page)).toEqual(before);
	expect((await succeed<{ agent: { unlocked: boolean } }>(page, 'status')).agent.unlocked).toBe(false);
	expect(await failureCode(page, 'unlock', 'signing', PASSPHRASE)).toBe('KEY_NOT_FOUND');
	await succeed(page, 'unlock', 'agent', PASSPHRASE);
});

test('lock wipes the keys: decrypting afterwards fails with LOCKED until the key is unlocked and the wrap reopened', async ({ page }) => {
	const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	const { conversationId, wrap, items } = conversationFor(agent.publicKey);
	await succeed(page, 'openConversationKey', agent.handle, conversationId, wrap);
	expect(await succeed(page, 'decryptHistory', conversationId, items)).toEqual([{ ok: true, text: 'hello agent' }]);

	await succeed(page, 'lock');
	expect(await failureCode(page, 'decryptHistory', conversationId, items)).toBe('LOCKED');
	expect(await failureCode(page, 'encryptReply', conversationId, 'still there?', 1)).toBe('LOCKED');
	expect(await failureCode(page, 'openConversationKey', agent.handle, conversationId, wrap)).toBe('LOCKED');
	expect((await succeed<{ agent: { unlocked: boolean } }>(page, 'status')).agent.unlocked).toBe(false);

	const again = await succeed<Unlocked>(page, 'unlock', 'agent', PASSPHRASE);
	expect(again.handle).not.toBe(agent.handle);
	expect(await failureCode(page, 'decryptHistory', conversationId, items)).toBe('CONVERSATION_KEY_NOT_OPEN');
	await succeed(page, 'openConversationKey', again.handle, conversationId, wrap);
	expect(await succeed(page, 'decryptHistory', conversationId, items)).toEqual([{ ok: true, text: 'hello agent' }]);
});

test('change of passphrase: the old one stops working, the key stays the same, and a stored wrap exists at every moment', async ({
	page
}) => {
	const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	const [before] = await keyRecords(page);
	expect(await failureCode(page, 'changePassphrase', 'agent', 'not the passphrase', NEW_PASSPHRASE)).toBe('WRONG_PASSPHRASE');
	expect(await failureCode(page, 'changePassphrase', 'agent', PASSPHRASE, 'short')).toBe('INVALID_INPUT');
	expect(await keyRecords(page)).toEqual([before]);

	// Watch the stored record while the change runs: it must never be missing, and only the old or the new wrap.
	const seen = await page.evaluate(
		async ([oldPassphrase, newPassphrase]) => {
			const harness = window.cryptoHarness;
			const observed: Array<string | null> = [];
			let running = true;
			const watch = (async () => {
				while (running) {
					const records = (await harness.dumpIndexedDb()).filter((entry) => entry.store === 'keys').flatMap((entry) => entry.records);
					const agent = records.find((record) => (record as { kind: string }).kind === 'agent') as
						{ sealed: { ciphertext: string } } | undefined;
					observed.push(agent ? agent.sealed.ciphertext : null);
				}
			})();
			const outcome = await harness.call('changePassphrase', 'agent', oldPassphrase, newPassphrase);
			running = false;
			await watch;
			return { outcome, observed };
		},
		[PASSPHRASE, NEW_PASSPHRASE]
	);
	expect(seen.outcome.ok).toBe(true);
	const [after] = await keyRecords(page);
	const beforeWrap = (before as { sealed: { ciphertext: string } }).sealed.ciphertext;
	const afterWrap = (after as { sealed: { ciphertext: string } }).sealed.ciphertext;
	expect(afterWrap).not.toBe(beforeWrap);
	expect(seen.observed.length).toBeGreaterThan(1);
	expect(seen.observed.filter((wrap) => wrap !== beforeWrap && wrap !== afterWrap)).toEqual([]);
	expect(after).toMatchObject({ kind: 'agent', publicKey: agent.publicKey, agentKeyId: agent.agentKeyId, createdAt: agent.createdAt });

	await openHarness(page);
	expect(await failureCode(page, 'unlock', 'agent', PASSPHRASE)).toBe('WRONG_PASSPHRASE');
	expect(await succeed(page, 'unlock', 'agent', NEW_PASSPHRASE)).toMatchObject({ publicKey: agent.publicKey });
});

test('export a backup and import it in another browser profile', async ({ page, browser }) => {
	const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	expect(await failureCode(page, 'exportBackup', 'agent', 'not the passphrase')).toBe('WRONG_PASSPHRASE');
	const backup = await succeed<{ fileName: string; text: string }>(page, 'exportBackup', 'agent', PASSPHRASE);
	expect(backup.fileName).toBe(`inbox-agent-key-${agent.agentKeyId}.json`);
	expect(JSON.parse(backup.text)).toMatchObject({
		format: 'encrypted-inbox-key-backup',
		version: 1,
		kind: 'agent',
		publicKey: agent.publicKey
	});

	// The file opens with its documented construction, independently of this browser's device key.
	const opened = await openBackup(backup.text, PASSPHRASE);
	expect(b64uEncode(x25519PublicKey(opened.secretKey))).toBe(agent.publicKey);

	const other = await browser.newContext();
	const otherPage = await other.newPage();
	await openHarness(otherPage);
	expect(await failureCode(otherPage, 'importBackup', backup.text, 'not the passphrase')).toBe('WRONG_PASSPHRASE');
	expect(await failureCode(otherPage, 'importBackup', '{"format":"something else"}', PASSPHRASE)).toBe('INVALID_INPUT');
	const tampered = backup.text.replace(agent.publicKey, b64uEncode(new Uint8Array(32).fill(7)));
	expect(await failureCode(otherPage, 'importBackup', tampered, PASSPHRASE)).toBe('WRONG_PASSPHRASE');
	expect(await keyRecords(otherPage)).toEqual([]);

	const imported = await succeed<Unlocked>(otherPage, 'importBackup', backup.text, PASSPHRASE);
	expect(imported).toMatchObject({ kind: 'agent', publicKey: agent.publicKey, agentKeyId: agent.agentKeyId, createdAt: agent.createdAt });
	const { conversationId, wrap, items } = conversationFor(agent.publicKey);
	await succeed(otherPage, 'openConversationKey', imported.handle, conversationId, wrap);
	expect(await succeed(otherPage, 'decryptHistory', conversationId, items)).toEqual([{ ok: true, text: 'hello agent' }]);
	await openHarness(otherPage);
	expect(await succeed(otherPage, 'unlock', 'agent', PASSPHRASE)).toMatchObject({ publicKey: agent.publicKey });
	await other.close();
});

test('a backup does not replace another stored key unless told to', async ({ page, browser }) => {
	const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	const backup = await succeed<{ text: string }>(page, 'exportBackup', 'agent', PASSPHRASE);
	const other = await browser.newContext();
	const otherPage = await other.newPage();
	await openHarness(otherPage);
	const own = await succeed<Unlocked>(otherPage, 'createAgentKey', NEW_PASSPHRASE);
	expect(await failureCode(otherPage, 'importBackup', backup.text, PASSPHRASE)).toBe('KEY_EXISTS');
	expect((await succeed<{ agent: Unlocked }>(otherPage, 'status')).agent.publicKey).toBe(own.publicKey);
	await succeed(otherPage, 'importBackup', backup.text, PASSPHRASE, { replace: true });
	expect((await succeed<{ agent: Unlocked }>(otherPage, 'status')).agent.publicKey).toBe(agent.publicKey);
	await other.close();
});

test("the admin's signing.key: checked against signing.pub, then it signs the roster and the rotation statements", async ({ page }) => {
	const pair = generateEd25519KeyPair();
	const stranger = generateEd25519KeyPair();
	const signingKey = formatKeyFile(pair.secretKey);
	const refused = await page.evaluate(
		([key, pub, pass]) => window.cryptoHarness.importSigningKeyFile(key, pub, pass),
		[signingKey, formatKeyFile(stranger.publicKey), PASSPHRASE]
	);
	expect(refused).toMatchObject({ ok: false, code: 'INVALID_INPUT', contractError: true });
	expect(await keyRecords(page)).toEqual([]);

	const imported = await page.evaluate(
		([key, pub, pass]) => window.cryptoHarness.importSigningKeyFile(key, pub, pass),
		[signingKey, formatKeyFile(pair.publicKey), PASSPHRASE]
	);
	if (!imported.ok) throw new Error(imported.message);
	const signing = imported.value as unknown as Unlocked;
	expect(signing).toMatchObject({ kind: 'signing', publicKey: b64uEncode(pair.publicKey) });

	const agentKey = b64uEncode(new Uint8Array(32).fill(9));
	const roster = {
		companyId: 'cmp_keystoreTest',
		rosterVersion: 2,
		issuedAt: '2026-11-22T10:00:00Z',
		agents: [{ agentKeyId: 'agk_0123456789abcdef', publicKey: agentKey }]
	};
	const signedRoster = await succeed<{ statement: string; signature: string; signingPublicKey: string }>(
		page,
		'signRoster',
		signing.handle,
		roster
	);
	expect(signedRoster.statement).toBe(`Service|v1|agent-roster|cmp_keystoreTest|2|2026-11-22T10:00:00Z|agk_0123456789abcdef:${agentKey}`);
	expect(signedRoster.signingPublicKey).toBe(signing.publicKey);
	verifyRoster({ ...roster, signature: signedRoster.signature }, pair.publicKey);
	expect(await failureCode(page, 'signRoster', signing.handle, { ...roster, issuedAt: '2026-11-22T10:00:00.000Z' })).toBe('INVALID_INPUT');

	const rotation = {
		companyId: 'cmp_keystoreTest',
		fromKeyVersion: 1,
		fromPublicKey: agentKey,
		toKeyVersion: 2,
		toPublicKey: b64uEncode(new Uint8Array(32).fill(3))
	};
	const signedRotation = await succeed<{ signature: string }>(page, 'signRotation', signing.handle, rotation);
	verifyRotation(
		{ ...rotation, fromPublicKey: new Uint8Array(32).fill(9), toPublicKey: new Uint8Array(32).fill(3) },
		signedRotation.signature,
		pair.publicKey
	);
	expect(await failureCode(page, 'signRotation', signing.handle, { ...rotation, toKeyVersion: 1 })).toBe('INVALID_INPUT');

	const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	expect(await failureCode(page, 'signRoster', agent.handle, roster)).toBe('INVALID_INPUT');
	await succeed(page, 'lock');
	expect(await failureCode(page, 'signRoster', signing.handle, roster)).toBe('LOCKED');
	await openHarness(page);
	const reopened = await succeed<Unlocked>(page, 'unlock', 'signing', PASSPHRASE);
	verifyRoster(
		{ ...roster, signature: (await succeed<{ signature: string }>(page, 'signRoster', reopened.handle, roster)).signature },
		pair.publicKey
	);
});

test('delete removes the stored key and wipes it from the worker', async ({ page }) => {
	const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	const { conversationId, wrap, items } = conversationFor(agent.publicKey);
	await succeed(page, 'openConversationKey', agent.handle, conversationId, wrap);
	expect(await succeed(page, 'deleteKey', 'agent')).toBe(true);
	expect(await succeed(page, 'status')).toEqual({ agent: null, signing: null });
	expect(await keyRecords(page)).toEqual([]);
	expect(await failureCode(page, 'decryptHistory', conversationId, items)).toBe('LOCKED');
	expect(await failureCode(page, 'unlock', 'agent', PASSPHRASE)).toBe('KEY_NOT_FOUND');
	expect(await succeed(page, 'deleteKey', 'agent')).toBe(false);
});

test('no secret key is stored in clear in any IndexedDB record, and the device key is not extractable', async ({ page }) => {
	const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	const pair = generateEd25519KeyPair();
	const imported = await page.evaluate(
		([key, pub, pass]) => window.cryptoHarness.importSigningKeyFile(key, pub, pass),
		[formatKeyFile(pair.secretKey), formatKeyFile(pair.publicKey), NEW_PASSPHRASE]
	);
	expect(imported.ok).toBe(true);
	const agentSecret = (await openBackup((await succeed<{ text: string }>(page, 'exportBackup', 'agent', PASSPHRASE)).text, PASSPHRASE))
		.secretKey;
	// the session's unlock record: the share stays on the server, the key is sealed under it and the device key
	const share = crypto.getRandomValues(new Uint8Array(32));
	await succeed(page, 'rememberUnlock', agent.handle, b64uEncode(share));

	const dump = await page.evaluate(() => window.cryptoHarness.dumpIndexedDb());
	const text = JSON.stringify(dump);
	// The scan reads the records: the public values are there...
	expect(text).toContain(agent.publicKey);
	expect(text).toContain(b64uEncode(pair.publicKey));
	// ...and no spelling of either secret.
	expect(leaks(text, agentSecret)).toEqual([]);
	expect(leaks(text, pair.secretKey.subarray(0, 32))).toEqual([]);
	expect(leaks(text, share)).toEqual([]);

	const device = dump.find((entry) => entry.store === 'device');
	expect(device?.records).toEqual([
		{
			id: 'device',
			createdAt: expect.any(String),
			key: { $cryptoKey: { type: 'secret', extractable: false, algorithm: 'AES-GCM', usages: ['encrypt', 'decrypt'] } }
		}
	]);
	const stores = dump.map((entry) => `${entry.database}/${entry.store}`).sort();
	// drafts and the search index have stores of their own, sealed under the device key (empty here)
	expect(stores).toEqual([
		'inbox-keystore/device',
		'inbox-keystore/drafts',
		'inbox-keystore/keys',
		'inbox-keystore/search',
		'inbox-keystore/unlock'
	]);
	expect(dump.filter((entry) => entry.store === 'drafts' || entry.store === 'search').map((entry) => entry.records)).toEqual([[], []]);
	expect(dump.find((entry) => entry.store === 'unlock')?.records).toHaveLength(1);
});

test('each account keeps its keys in its own store, and a refused account id fails every call', async ({ page }) => {
	await succeed(page, 'selectAccount', 'acc_alice');
	const alice = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
	await succeed(page, 'selectAccount', 'acc_bob');
	expect(await succeed(page, 'status')).toEqual({ agent: null, signing: null });
	await succeed(page, 'selectAccount', 'acc_alice');
	expect((await succeed<{ agent: Unlocked & { unlocked: boolean } }>(page, 'status')).agent).toMatchObject({
		publicKey: alice.publicKey,
		unlocked: false
	});
	expect(await failureCode(page, 'selectAccount', 'acc alice')).toBe('INVALID_INPUT');

	const fromNewWorker = await page.evaluate(() => window.cryptoHarness.statusForAccount('acc_alice'));
	expect(fromNewWorker).toMatchObject({ ok: true, value: { agent: { publicKey: alice.publicKey } } });
	const refused = await page.evaluate(() => window.cryptoHarness.statusForAccount('acc alice'));
	expect(refused).toMatchObject({ ok: false, code: 'INVALID_INPUT', contractError: true });
	const databases = (await page.evaluate(() => window.cryptoHarness.dumpIndexedDb())).map((entry) => entry.database);
	expect(new Set(databases)).toEqual(new Set(['inbox-keystore:acc_alice', 'inbox-keystore:acc_bob']));
});

test('a key store written by a newer version of the inbox is refused with a clear error', async ({ page }) => {
	await page.evaluate(
		() =>
			new Promise<void>((resolve, reject) => {
				const request = indexedDB.open('inbox-keystore', 99);
				request.onsuccess = () => {
					request.result.close();
					resolve();
				};
				request.onerror = () => reject(request.error);
			})
	);
	const outcome = await call(page, 'status');
	expect(outcome).toMatchObject({ ok: false, code: 'STORAGE_UNAVAILABLE', contractError: true });
	expect(outcome.ok ? '' : outcome.message).toMatch(/newer version/);
});

test('persistent storage is asked for, and the answer says whether the browser granted it', async ({ page }) => {
	const answer = await page.evaluate(() => window.cryptoHarness.requestPersistentStorage());
	const persisted = await page.evaluate(() => navigator.storage.persisted());
	expect(answer.state).toBe(persisted ? 'persisted' : 'refused');
	expect(answer.message === '').toBe(persisted);
});

// eslint-disable-next-line no-empty-pattern -- Playwright passes fixtures first; this test launches its own browser
test('a copied browser profile holds no secret key in clear', async ({}, testInfo) => {
	const profile = mkdtempSync(join(tmpdir(), 'inbox-profile-'));
	try {
		const context = await chromium.launchPersistentContext(profile, {
			...testInfo.project.use.launchOptions,
			baseURL: testInfo.project.use.baseURL
		});
		const page = context.pages()[0] ?? (await context.newPage());
		await openHarness(page);
		const agent = await succeed<Unlocked>(page, 'createAgentKey', PASSPHRASE);
		const pair = generateEd25519KeyPair();
		await page.evaluate(
			([key, pub, pass]) => window.cryptoHarness.importSigningKeyFile(key, pub, pass),
			[formatKeyFile(pair.secretKey), formatKeyFile(pair.publicKey), PASSPHRASE]
		);
		const agentSecret = (await openBackup((await succeed<{ text: string }>(page, 'exportBackup', 'agent', PASSPHRASE)).text, PASSPHRASE))
			.secretKey;
		await context.close();

		const files: string[] = [];
		const walk = (dir: string) => {
			for (const name of readdirSync(dir)) {
				const path = join(dir, name);
				const stat = statSync(path, { throwIfNoEntry: false });
				if (stat?.isDirectory()) walk(path);
				else if (stat?.isFile()) files.push(path);
			}
		};
		walk(profile);
		const indexedDbFiles = files.filter((path) => path.includes('IndexedDB'));
		expect(indexedDbFiles.length, 'the profile should hold IndexedDB files').toBeGreaterThan(0);
		const everything = files.map((path) => readFileSync(path).toString('latin1')).join('\n');
		// The scan can see stored values (the agent's public key and id are there)...
		expect(everything).toContain(agent.agentKeyId);
		// ...but not the secrets.
		expect(leaks(everything, agentSecret)).toEqual([]);
		expect(leaks(everything, pair.secretKey.subarray(0, 32))).toEqual([]);
	} finally {
		rmSync(profile, { recursive: true, force: true });
	}
});

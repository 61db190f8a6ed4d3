import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { refusal } from '$test-support/refusal';
import { b64uDecode, b64uEncode } from '../crypto/encoding';
import { fingerprintDisplay, generateEd25519KeyPair, x25519PublicKey } from '../crypto/keys';
import { initCrypto, sodium } from '../crypto/sodium';
import { passphraseContext } from './backup';
import { KeyStore } from './keystore';
import { PASSPHRASE_KDF_DEFAULTS } from './passphrase';
import { recordOf } from './records';
import { openKeyStoreDatabase } from './schema';

const PASSPHRASE = 'correct horse battery';
let stores = 0;
/** A key store of its own database, as a fresh browser profile has. */
const freshStore = () => new KeyStore(`inbox-keystore-spec-${++stores}`);

beforeAll(() => initCrypto());

describe('the key store in IndexedDB (docs/crypto-worker.md)', () => {
	it('creates one agent key, lists only its public values, and unlocks it with its passphrase only', async () => {
		const store = freshStore();
		expect(await store.list()).toEqual([]);
		expect(await store.info('agent')).toBeNull();
		const created = await store.createAgentKey(PASSPHRASE);
		expect(created.info.agentKeyId).toMatch(/^agk_[A-Za-z0-9_-]{16}$/);
		expect(x25519PublicKey(created.secretKey)).toEqual(created.publicKey);
		expect(created.info).toMatchObject({
			kind: 'agent',
			publicKey: b64uEncode(created.publicKey),
			fingerprint: fingerprintDisplay(created.publicKey)
		});
		expect(await store.list()).toEqual([created.info]);
		expect(await store.info('agent')).toEqual(created.info);
		expect(JSON.stringify(await store.list())).not.toContain(b64uEncode(created.secretKey));

		expect((await store.unlock('agent', PASSPHRASE)).secretKey).toEqual(created.secretKey);
		expect(await refusal(store.unlock('agent', 'wrong horse battery'))).toMatchObject({ code: 'WRONG_PASSPHRASE' });
		expect(await refusal(store.createAgentKey(PASSPHRASE))).toEqual({
			code: 'KEY_EXISTS',
			message: 'an agent key is already stored in this browser'
		});
		expect(await refusal(store.createAgentKey('short'))).toMatchObject({ code: 'INVALID_INPUT' });
		await store.close();
	});

	it('keeps its keys across a reopened connection, under one device key', async () => {
		const store = freshStore();
		const created = await store.createAgentKey(PASSPHRASE);
		await store.close();
		expect((await store.unlock('agent', PASSPHRASE)).secretKey).toEqual(created.secretKey);
		await store.close();
	});

	it('refuses an unknown kind and a key that is not stored, naming them', async () => {
		const store = freshStore();
		expect(await refusal(store.info('admin' as never))).toEqual({ code: 'INVALID_INPUT', message: 'key kind must be agent or signing' });
		expect(await refusal(store.unlock('signing', PASSPHRASE))).toEqual({
			code: 'KEY_NOT_FOUND',
			message: 'no signing key is stored in this browser'
		});
		expect(await refusal(store.exportBackup('agent', PASSPHRASE))).toMatchObject({ code: 'KEY_NOT_FOUND' });
		expect(await store.delete('agent')).toBe(false);
		await store.close();
	});

	it('stores a signing key once: the same key is re-sealed, another one replaces it only when asked', async () => {
		const store = freshStore();
		const signing = generateEd25519KeyPair();
		const stored = await store.storeSigningKey(signing.secretKey, PASSPHRASE);
		expect(stored.publicKey).toEqual(signing.publicKey);
		const again = await store.storeSigningKey(signing.secretKey, 'another passphrase');
		expect(again.info.createdAt).toBe(stored.info.createdAt);
		expect(await refusal(store.unlock('signing', PASSPHRASE))).toMatchObject({ code: 'WRONG_PASSPHRASE' });
		expect((await store.unlock('signing', 'another passphrase')).secretKey).toEqual(signing.secretKey);

		const other = generateEd25519KeyPair();
		expect(await refusal(store.storeSigningKey(other.secretKey, PASSPHRASE))).toEqual({
			code: 'KEY_EXISTS',
			message: 'another signing key is already stored in this browser'
		});
		expect((await store.storeSigningKey(other.secretKey, PASSPHRASE, { replace: true })).publicKey).toEqual(other.publicKey);
		expect((await store.info('signing'))?.publicKey).toBe(b64uEncode(other.publicKey));
		const broken = other.secretKey.slice();
		broken[40] ^= 1;
		expect(await refusal(store.storeSigningKey(broken, PASSPHRASE, { replace: true }))).toMatchObject({ code: 'INVALID_INPUT' });
		await store.close();
	});

	it('changes a passphrase only with the old one, and the old one opens nothing afterwards', async () => {
		const store = freshStore();
		const created = await store.createAgentKey(PASSPHRASE);
		expect(await refusal(store.changePassphrase('agent', 'not the passphrase', 'a new passphrase'))).toMatchObject({
			code: 'WRONG_PASSPHRASE'
		});
		expect(await refusal(store.changePassphrase('agent', PASSPHRASE, 'short'))).toMatchObject({ code: 'INVALID_INPUT' });
		const info = await store.changePassphrase('agent', PASSPHRASE, 'a new passphrase');
		expect(info.publicKey).toBe(created.info.publicKey);
		expect(await refusal(store.unlock('agent', PASSPHRASE))).toMatchObject({ code: 'WRONG_PASSPHRASE' });
		expect((await store.unlock('agent', 'a new passphrase')).secretKey).toEqual(created.secretKey);
		await store.close();
	});

	it('exports a backup only with the passphrase, and another browser imports it under its own device key', async () => {
		const store = freshStore();
		const created = await store.createAgentKey(PASSPHRASE);
		expect(await refusal(store.exportBackup('agent', 'not the passphrase'))).toMatchObject({ code: 'WRONG_PASSPHRASE' });
		const backup = await store.exportBackup('agent', PASSPHRASE);
		expect(backup).toMatchObject({ kind: 'agent', publicKey: created.info.publicKey, agentKeyId: created.info.agentKeyId });
		expect(JSON.stringify(backup)).not.toContain(b64uEncode(created.secretKey));

		const elsewhere = freshStore();
		expect(await refusal(elsewhere.importBackup(JSON.stringify(backup), 'not the passphrase'))).toMatchObject({ code: 'WRONG_PASSPHRASE' });
		expect(await elsewhere.list()).toEqual([]);
		const imported = await elsewhere.importBackup(JSON.stringify(backup), PASSPHRASE);
		expect(imported.secretKey).toEqual(created.secretKey);
		expect((await elsewhere.unlock('agent', PASSPHRASE)).secretKey).toEqual(created.secretKey);

		const third = freshStore();
		await third.createAgentKey(PASSPHRASE);
		expect(await refusal(third.importBackup(JSON.stringify(backup), PASSPHRASE))).toEqual({
			code: 'KEY_EXISTS',
			message: 'another agent key is already stored in this browser; importing would replace it'
		});
		expect((await third.importBackup(JSON.stringify(backup), PASSPHRASE, { replace: true })).publicKey).toEqual(created.publicKey);
		for (const each of [store, elsewhere, third]) await each.close();
	});

	it('deletes a stored key', async () => {
		const store = freshStore();
		await store.createAgentKey(PASSPHRASE);
		expect(await store.delete('agent')).toBe(true);
		expect(await store.info('agent')).toBeNull();
		expect(await store.delete('agent')).toBe(false);
		await store.close();
	});

	it('two tabs creating a key at once: one key, one device key, and a third tab opens it', async () => {
		const name = `inbox-keystore-spec-${++stores}`;
		const [a, b] = [new KeyStore(name), new KeyStore(name)];
		const results = await Promise.allSettled([a.createAgentKey(PASSPHRASE), b.createAgentKey(PASSPHRASE)]);
		const created = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
		const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
		expect(created).toHaveLength(1);
		expect(refused.map(({ code, message }) => ({ code, message }))).toEqual([
			{ code: 'KEY_EXISTS', message: 'an agent key is already stored in this browser' }
		]);
		const third = new KeyStore(name);
		expect((await third.unlock('agent', PASSPHRASE)).secretKey).toEqual(created[0].secretKey);

		const signing = await Promise.allSettled([
			a.storeSigningKey(generateEd25519KeyPair().secretKey, PASSPHRASE),
			b.storeSigningKey(generateEd25519KeyPair().secretKey, PASSPHRASE)
		]);
		expect(await refusal(Promise.reject((signing[1] as PromiseRejectedResult).reason))).toEqual({
			code: 'KEY_EXISTS',
			message: 'a signing key is already stored in this browser'
		});
		for (const each of [a, b, third]) await each.close();
	});

	it('of two tabs changing the passphrase at once, the second is told to try again and the first one holds', async () => {
		const name = `inbox-keystore-spec-${++stores}`;
		const created = await new KeyStore(name).createAgentKey(PASSPHRASE);
		const [a, b] = [new KeyStore(name), new KeyStore(name)];
		const results = await Promise.allSettled([
			a.changePassphrase('agent', PASSPHRASE, 'first new passphrase'),
			b.changePassphrase('agent', PASSPHRASE, 'second new passphrase')
		]);
		expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
		expect(await refusal(Promise.reject((results[1] as PromiseRejectedResult).reason))).toEqual({
			code: 'KEY_EXISTS',
			message: 'the stored agent key changed meanwhile; try again'
		});
		expect((await a.unlock('agent', 'first new passphrase')).secretKey).toEqual(created.secretKey);
		for (const each of [a, b]) await each.close();
	});

	it('re-seals a key stored with weaker parameters than today on unlock, and leaves a current one as it is', async () => {
		const name = `inbox-keystore-spec-${++stores}`;
		const store = new KeyStore(name);
		const created = await store.createAgentKey(PASSPHRASE);
		const database = await openKeyStoreDatabase(name);
		const current = (await database.get('keys', 'agent'))!;
		await store.unlock('agent', PASSPHRASE);
		expect((await database.get('keys', 'agent'))?.sealed).toEqual(current.sealed);

		// The same key wrapped as an older version did: Argon2id at OWASP's minimum.
		const lib = sodium();
		const kdf = { algorithm: 'argon2id13' as const, opslimit: 2, memlimit: 19 * 1024 * 1024, salt: b64uEncode(lib.randombytes_buf(16)) };
		const weakKey = lib.crypto_pwhash(32, PASSPHRASE, b64uDecode(kdf.salt), kdf.opslimit, kdf.memlimit, lib.crypto_pwhash_ALG_ARGON2ID13);
		const nonce = lib.randombytes_buf(24);
		const box = lib.crypto_aead_xchacha20poly1305_ietf_encrypt(
			created.secretKey,
			passphraseContext('agent', current.publicKey),
			null,
			nonce,
			weakKey
		);
		const deviceKey = (await database.get('device', 'device'))!.key;
		await database.put('keys', await recordOf(deviceKey, current, { kdf, nonce: b64uEncode(nonce), box: b64uEncode(box) }));

		expect((await store.unlock('agent', PASSPHRASE)).secretKey).toEqual(created.secretKey);
		const upgraded = (await database.get('keys', 'agent'))!;
		expect(upgraded.kdf).toMatchObject({ opslimit: PASSPHRASE_KDF_DEFAULTS.opslimit, memlimit: PASSPHRASE_KDF_DEFAULTS.memlimit });
		expect((await store.unlock('agent', PASSPHRASE)).secretKey).toEqual(created.secretKey);
		database.close();
		await store.close();
	});

	it('hands back its own copy of a stored signing key, and takes the backup of the key it already holds without asking', async () => {
		const store = freshStore();
		const signing = generateEd25519KeyPair();
		const given = signing.secretKey.slice();
		const stored = await store.storeSigningKey(given, PASSPHRASE);
		given.fill(0); // the caller wipes what it passed in
		expect(stored.secretKey).toEqual(signing.secretKey);

		const backup = JSON.stringify(await store.exportBackup('signing', PASSPHRASE));
		expect((await store.importBackup(backup, PASSPHRASE)).publicKey).toEqual(signing.publicKey);
		await store.close();
	});

	it('closes its connection, and opens a new one after another tab deleted the database', async () => {
		const name = `inbox-keystore-spec-${++stores}`;
		const store = new KeyStore(name);
		await store.createAgentKey(PASSPHRASE);
		await new Promise<void>((resolve, reject) => {
			const request = indexedDB.deleteDatabase(name); // the open connection steps aside
			request.onsuccess = () => resolve();
			request.onerror = () => reject(request.error);
		});
		expect(await store.list()).toEqual([]);

		const close = vi.spyOn(IDBDatabase.prototype, 'close');
		await store.close();
		expect(close).toHaveBeenCalledTimes(1);
		close.mockRestore();
	});
});

import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it } from 'vitest';
import { refusal } from '$test-support/refusal';
import { b64uEncode } from '../crypto/encoding';
import { fingerprintDisplay, generateEd25519KeyPair, x25519PublicKey } from '../crypto/keys';
import { initCrypto } from '../crypto/sodium';
import { KeyStore } from './keystore';

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
});

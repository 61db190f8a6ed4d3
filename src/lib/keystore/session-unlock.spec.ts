import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, hexEncode } from '../crypto/encoding';
import { initCrypto, sodium } from '../crypto/sodium';
import { KeyStore } from './keystore';
import { openKeyStoreDatabase } from './schema';

const PASSPHRASE = 'correct horse battery';
let stores = 0;

beforeAll(() => initCrypto());

describe('unlock once per browser session (docs/crypto-worker.md "Unlock once per browser session")', () => {
	const share = () => sodium().randombytes_buf(32);

	it('opens the key another tab unlocked, with the session share only, and never stores the secret or the share', async () => {
		const name = `inbox-keystore-unlock-${++stores}`;
		const firstTab = new KeyStore(name);
		const created = await firstTab.createAgentKey(PASSPHRASE);
		const sessionShare = share();
		await firstTab.rememberUnlock(created, sessionShare);

		const reloaded = new KeyStore(name);
		const resumed = await reloaded.resumeUnlock('agent', sessionShare);
		expect(resumed).toEqual(created);

		// what rests in IndexedDB: neither the secret nor the share, in any encoding
		const database = await openKeyStoreDatabase(name);
		const [stored] = await database.getAll('unlock');
		database.close();
		const raw = JSON.stringify(stored, (_key, value) => (value instanceof Uint8Array ? hexEncode(value) : value));
		for (const secret of [created.secretKey, sessionShare])
			for (const text of [hexEncode(secret), b64uEncode(secret), Buffer.from(secret).toString('base64')]) expect(raw).not.toContain(text);
		expect(stored).toMatchObject({ kind: 'agent', publicKey: b64uEncode(created.publicKey) });
	});

	it('opens nothing with another share, and forgets the sealed copy then, at lock and when the key is deleted', async () => {
		const name = `inbox-keystore-unlock-${++stores}`;
		const store = new KeyStore(name);
		const created = await store.createAgentKey(PASSPHRASE);
		const sessionShare = share();

		await store.rememberUnlock(created, sessionShare);
		expect(await store.resumeUnlock('agent', share())).toBeNull();
		// the wrong share deleted it: the right one finds nothing now
		expect(await store.resumeUnlock('agent', sessionShare)).toBeNull();

		await store.rememberUnlock(created, sessionShare);
		await store.forgetUnlock();
		expect(await store.resumeUnlock('agent', sessionShare)).toBeNull();

		await store.rememberUnlock(created, sessionShare);
		await store.delete('agent');
		await store.createAgentKey(PASSPHRASE);
		expect(await store.resumeUnlock('agent', sessionShare)).toBeNull();
	});

	it('is useless in another browser, whose device key differs', async () => {
		const name = `inbox-keystore-unlock-${++stores}`;
		const store = new KeyStore(name);
		const created = await store.createAgentKey(PASSPHRASE);
		const sessionShare = share();
		await store.rememberUnlock(created, sessionShare);
		const database = await openKeyStoreDatabase(name);
		const copied = await database.getAll('unlock');
		await database.clear('device');
		database.close();

		const elsewhere = new KeyStore(name);
		// the key record needs its passphrase again there too, but the copied unlock must not open
		const other = await openKeyStoreDatabase(name);
		for (const record of copied) await other.put('unlock', record);
		other.close();
		await expect(elsewhere.resumeUnlock('agent', sessionShare)).resolves.toBeNull();
	});

	it('refuses a share of the wrong length', async () => {
		const store = new KeyStore(`inbox-keystore-unlock-${++stores}`);
		const created = await store.createAgentKey(PASSPHRASE);
		await expect(store.rememberUnlock(created, new Uint8Array(16))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
	});
});

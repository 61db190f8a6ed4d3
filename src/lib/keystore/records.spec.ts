import { beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, b64uEncode } from '../crypto/encoding';
import { generateX25519KeyPair } from '../crypto/keys';
import { initCrypto } from '../crypto/sodium';
import { generateDeviceKey, openForDevice } from './device-key';
import { openRecord, passphraseLayerOf, sealRecord } from './records';

beforeAll(() => initCrypto());

const contains = (haystack: Uint8Array, needle: Uint8Array) => Buffer.from(haystack).includes(Buffer.from(needle));

describe('key records: the passphrase layer under the device layer (docs/crypto-worker.md)', () => {
	it('a sealed secret opens with its passphrase only, and neither layer alone holds it in clear', async () => {
		const deviceKey = await generateDeviceKey();
		const pair = generateX25519KeyPair();
		const base = {
			kind: 'agent' as const,
			publicKey: b64uEncode(pair.publicKey),
			agentKeyId: 'agk_test0000',
			createdAt: '2026-11-24T10:00:00Z'
		};
		const record = await sealRecord(deviceKey, base, pair.secretKey, 'correct horse battery');

		const opened = await openRecord(deviceKey, record, 'correct horse battery');
		expect(opened.secretKey).toEqual(pair.secretKey);
		await expect(openRecord(deviceKey, record, 'wrong horse battery')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
		await expect(openRecord(await generateDeviceKey(), record, 'correct horse battery')).rejects.toMatchObject({
			code: 'STORAGE_UNAVAILABLE'
		});

		// What the device key opens is the passphrase layer: a nonce and a box, not the secret.
		const layer = await passphraseLayerOf(deviceKey, record);
		expect(contains(b64uDecode(layer.box), pair.secretKey)).toBe(false);
		const inner = await openForDevice(deviceKey, record.sealed, `inbox-keystore|v1|device|agent|${base.publicKey}|${record.kdf.salt}`);
		expect(contains(inner, pair.secretKey)).toBe(false);
		expect(JSON.stringify(record)).not.toContain(b64uEncode(pair.secretKey));
	});
});

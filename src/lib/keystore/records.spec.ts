import { beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, b64uEncode } from '../crypto/encoding';
import { fingerprintDisplay, generateEd25519KeyPair, generateX25519KeyPair } from '../crypto/keys';
import { initCrypto } from '../crypto/sodium';
import { generateDeviceKey, openForDevice, sealForDevice } from './device-key';
import { checkPair, describe as describeRecord, openRecord, passphraseLayerOf, recordOf, sealRecord } from './records';
import { KEY_RECORD_FORMAT } from './schema';

beforeAll(() => initCrypto());

const contains = (haystack: Uint8Array, needle: Uint8Array) => Buffer.from(haystack).includes(Buffer.from(needle));

/** A fresh agent key pair sealed into a record under a fresh device key. */
async function sealedAgentKey() {
	const deviceKey = await generateDeviceKey();
	const pair = generateX25519KeyPair();
	const base = {
		kind: 'agent' as const,
		publicKey: b64uEncode(pair.publicKey),
		agentKeyId: 'agk_test0000',
		createdAt: '2026-11-24T10:00:00Z'
	};
	return { deviceKey, pair, base, record: await sealRecord(deviceKey, base, pair.secretKey, 'correct horse battery') };
}

describe('key records: the passphrase layer under the device layer (docs/crypto-worker.md)', () => {
	it('a sealed secret opens with its passphrase only, and neither layer alone holds it in clear', async () => {
		const { deviceKey, pair, base, record } = await sealedAgentKey();

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

	it('keeps the public values beside the sealed secret, and opens a signing key as it was stored', async () => {
		const deviceKey = await generateDeviceKey();
		const pair = generateEd25519KeyPair();
		const base = { kind: 'signing' as const, publicKey: b64uEncode(pair.publicKey), createdAt: '2026-11-24T10:00:00Z' };
		const before = Date.now();
		const record = await sealRecord(deviceKey, base, pair.secretKey, 'correct horse battery');
		expect(record).toMatchObject({ kind: 'signing', format: KEY_RECORD_FORMAT, publicKey: base.publicKey, createdAt: base.createdAt });
		expect(record).not.toHaveProperty('agentKeyId');
		expect(Date.parse(record.updatedAt)).toBeGreaterThanOrEqual(before - 1);
		const opened = await openRecord(deviceKey, record, 'correct horse battery');
		expect(opened.secretKey).toEqual(pair.secretKey);
		expect(opened.publicKey).toEqual(pair.publicKey);
		expect(opened.info).toEqual({
			kind: 'signing',
			publicKey: base.publicKey,
			fingerprint: fingerprintDisplay(pair.publicKey),
			createdAt: base.createdAt,
			updatedAt: record.updatedAt
		});

		const agent = generateX25519KeyPair();
		const agentBase = {
			kind: 'agent' as const,
			publicKey: b64uEncode(agent.publicKey),
			agentKeyId: 'agk_test0001',
			createdAt: base.createdAt
		};
		const agentRecord = await sealRecord(deviceKey, agentBase, agent.secretKey, 'correct horse battery');
		expect(agentRecord.agentKeyId).toBe('agk_test0001');
		expect((await openRecord(deviceKey, agentRecord, 'correct horse battery')).info.agentKeyId).toBe('agk_test0001');
	});

	it('refuses a record whose public key was exchanged, or whose device layer holds something else', async () => {
		const deviceKey = await generateDeviceKey();
		const pair = generateX25519KeyPair();
		const base = { kind: 'agent' as const, publicKey: b64uEncode(pair.publicKey), createdAt: '2026-11-24T10:00:00Z' };
		const record = await sealRecord(deviceKey, base, pair.secretKey, 'correct horse battery');
		const swapped = { ...record, publicKey: b64uEncode(generateX25519KeyPair().publicKey) };
		await expect(openRecord(deviceKey, swapped, 'correct horse battery')).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });

		const context = `inbox-keystore|v1|device|agent|${base.publicKey}|${record.kdf.salt}`;
		const short = { ...record, sealed: await sealForDevice(deviceKey, new Uint8Array(24 + 32 + 15), context) };
		await expect(openRecord(deviceKey, short, 'correct horse battery')).rejects.toThrow('the stored agent key is damaged');
		await expect(openRecord(deviceKey, short, 'correct horse battery')).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
	});

	it('stores a secret only with the public key it belongs to', () => {
		const agent = generateX25519KeyPair();
		const signing = generateEd25519KeyPair();
		expect(() => checkPair('agent', agent.secretKey, agent.publicKey)).not.toThrow();
		expect(() => checkPair('signing', signing.secretKey, signing.publicKey)).not.toThrow();
		expect(() => checkPair('agent', agent.secretKey, generateX25519KeyPair().publicKey)).toThrow(
			'the agent secret key does not match its public key'
		);
		expect(() => checkPair('agent', signing.secretKey, agent.publicKey)).toThrow('the agent secret key must be 32 bytes');
		expect(() => checkPair('signing', agent.secretKey, signing.publicKey)).toThrow('the signing secret key must be 64 bytes');
		expect(() => checkPair('signing', signing.secretKey, generateEd25519KeyPair().publicKey)).toThrow(
			expect.objectContaining({ code: 'INVALID_INPUT' })
		);
	});

	it('names the field of a record or a layer that is not base64url', async () => {
		const { deviceKey, pair, base, record } = await sealedAgentKey();
		const layer = await passphraseLayerOf(deviceKey, record);
		await expect(recordOf(deviceKey, base, { ...layer, nonce: 'A' })).rejects.toThrow('nonce is not base64url: impossible length 1');
		await expect(recordOf(deviceKey, base, { ...layer, box: 'A' })).rejects.toThrow('box is not base64url: impossible length 1');

		// A public key damaged before it was sealed: both layers open, and the error names the field.
		const damaged = await sealRecord(deviceKey, { ...base, publicKey: 'A' }, pair.secretKey, 'correct horse battery');
		expect(() => describeRecord(damaged)).toThrow('publicKey is not base64url: impossible length 1');
		await expect(openRecord(deviceKey, damaged, 'correct horse battery')).rejects.toThrow(
			'publicKey is not base64url: impossible length 1'
		);
	});
});

import { describe, expect, it } from 'vitest';
import { ContractError } from '../crypto/errors';
import { generateDeviceKey, openForDevice, sealForDevice } from './device-key';

describe('the device layer (non-extractable AES-256-GCM)', () => {
	it('seals and opens with the same key and context', async () => {
		const key = await generateDeviceKey();
		const sealed = await sealForDevice(key, new Uint8Array([1, 2, 3]), 'context');
		expect(await openForDevice(key, sealed, 'context')).toEqual(new Uint8Array([1, 2, 3]));
	});

	it('the key cannot be exported', async () => {
		const key = await generateDeviceKey();
		expect(key.extractable).toBe(false);
		expect(key.algorithm).toMatchObject({ name: 'AES-GCM', length: 256 });
		await expect(crypto.subtle.exportKey('raw', key)).rejects.toThrow();
	});

	it('another key, another context or a changed byte is STORAGE_UNAVAILABLE', async () => {
		const key = await generateDeviceKey();
		const sealed = await sealForDevice(key, new Uint8Array(80), 'inbox-keystore|v1|device|agent|pk|salt');
		const expectCode = async (promise: Promise<unknown>) => {
			const error = await promise.catch((caught) => caught);
			expect(error).toBeInstanceOf(ContractError);
			expect((error as ContractError).code).toBe('STORAGE_UNAVAILABLE');
		};
		await expectCode(openForDevice(await generateDeviceKey(), sealed, 'inbox-keystore|v1|device|agent|pk|salt'));
		await expectCode(openForDevice(key, sealed, 'inbox-keystore|v1|device|signing|pk|salt'));
		const flipped = { ...sealed, ciphertext: (sealed.ciphertext[0] === 'A' ? 'B' : 'A') + sealed.ciphertext.slice(1) };
		await expectCode(openForDevice(key, flipped, 'inbox-keystore|v1|device|agent|pk|salt'));
	});
});

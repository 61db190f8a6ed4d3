import { afterEach, describe, expect, it, vi } from 'vitest';
import { ContractError } from '../errors';
import { generateDeviceKey, openBytesForDevice, openForDevice, sealBytesForDevice, sealForDevice } from './device-key';

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

	it('names the broken part of a stored record, and says why it cannot open one sealed elsewhere', async () => {
		const key = await generateDeviceKey();
		const sealed = await sealForDevice(key, new Uint8Array(8), 'context');
		await expect(openForDevice(key, undefined as never, 'context')).rejects.toThrow('device iv must be a base64url string');
		await expect(openForDevice(key, { ...sealed, iv: 'AAAA' }, 'context')).rejects.toThrow('device iv must be 12 bytes, got 3');
		await expect(openForDevice(key, { ...sealed, ciphertext: '!' }, 'context')).rejects.toThrow(/^device ciphertext is not base64url/);
		await expect(openForDevice(await generateDeviceKey(), sealed, 'context')).rejects.toThrow(
			"the stored key was not sealed by this browser's device key; restore it from a backup"
		);
	});

	describe('without WebCrypto (a page not served over HTTPS)', () => {
		afterEach(() => vi.unstubAllGlobals());

		it('says so instead of failing obscurely', async () => {
			const key = await generateDeviceKey();
			const sealed = await sealForDevice(key, new Uint8Array(8), 'context');
			vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => bytes });
			const unavailable = 'WebCrypto is unavailable: the inbox must be served over HTTPS (or from localhost)';
			await expect(generateDeviceKey()).rejects.toThrow(unavailable);
			await expect(openForDevice(key, sealed, 'context')).rejects.toThrow(unavailable);
			await expect(openForDevice(key, sealed, 'context')).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
			vi.stubGlobal('crypto', undefined);
			await expect(generateDeviceKey()).rejects.toThrow(unavailable);
		});
	});

	it('seals large records as raw bytes, bound to their context, and refuses anything else', async () => {
		const key = await generateDeviceKey();
		const sealed = await sealBytesForDevice(key, new Uint8Array([7, 8, 9]), 'inbox-search|v1');
		expect(sealed.iv).toHaveLength(12);
		expect(sealed.ciphertext.byteLength).toBe(3 + 16);
		expect(await openBytesForDevice(key, sealed, 'inbox-search|v1')).toEqual(new Uint8Array([7, 8, 9]));
		const refused = async (promise: Promise<unknown>) => {
			const error = await promise.catch((caught) => caught);
			expect(error).toBeInstanceOf(ContractError);
			return [(error as ContractError).code, (error as ContractError).message];
		};
		const elsewhere = ['STORAGE_UNAVAILABLE', "the stored record was not sealed by this browser's device key"];
		expect(await refused(openBytesForDevice(key, sealed, 'inbox-search|v2'))).toEqual(elsewhere);
		expect(await refused(openBytesForDevice(await generateDeviceKey(), sealed, 'inbox-search|v1'))).toEqual(elsewhere);
		const flipped = new Uint8Array(sealed.ciphertext.slice(0));
		flipped[0] ^= 1;
		expect(await refused(openBytesForDevice(key, { iv: sealed.iv, ciphertext: flipped.buffer }, 'inbox-search|v1'))).toEqual(elsewhere);
		const notBytes = ['STORAGE_UNAVAILABLE', 'the stored record is not sealed bytes'];
		expect(await refused(openBytesForDevice(key, { iv: sealed.iv.slice(1), ciphertext: sealed.ciphertext }, 'inbox-search|v1'))).toEqual(
			notBytes
		);
		expect(await refused(openBytesForDevice(key, { iv: sealed.iv, ciphertext: 'text' } as never, 'inbox-search|v1'))).toEqual(notBytes);
		expect(await refused(openBytesForDevice(key, undefined as never, 'inbox-search|v1'))).toEqual(notBytes);
	});
});

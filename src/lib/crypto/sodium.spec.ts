import { beforeAll, describe, expect, it, vi } from 'vitest';
import { allocateHeapRegions, initCrypto, rawSodium } from './sodium';

describe('libsodium and its WASM heap', () => {
	beforeAll(initCrypto);

	it('refuses to be used before initCrypto() has resolved, saying what to do', async () => {
		// A module instance of its own, not loaded yet (the query makes it another module).
		const fresh = (await import(/* @vite-ignore */ `./sodium.ts?${'not-loaded'}`)) as typeof import('./sodium');
		expect(() => fresh.sodium()).toThrow(new Error('libsodium is not ready: await initCrypto() first'));
		await fresh.initCrypto();
		expect(fresh.sodium().crypto_aead_xchacha20poly1305_ietf_KEYBYTES).toBe(32);
	});

	it('lays out 64-byte aligned regions, wipes them before freeing, and frees them once', () => {
		const lib = rawSodium();
		const regions = allocateHeapRegions({ key: 32, state: 100 });
		expect(regions.at.key % 64).toBe(0);
		expect(regions.at.state - regions.at.key).toBe(64);
		lib.HEAPU8.fill(7, regions.at.key, regions.at.key + 32);
		lib.HEAPU8.fill(7, regions.at.state, regions.at.state + 100);

		let atFree: Uint8Array | undefined;
		const realFree = lib._free;
		const free = vi.spyOn(lib, '_free').mockImplementation((pointer) => {
			atFree = lib.HEAPU8.slice(regions.at.key, regions.at.state + 100); // what the freed block still held
			realFree(pointer);
		});
		try {
			regions.release();
			regions.release();
			expect(free).toHaveBeenCalledTimes(1);
			expect(atFree?.every((byte) => byte === 0)).toBe(true);
		} finally {
			free.mockRestore();
		}
	});

	it('says so when the heap has no room left', () => {
		const malloc = vi.spyOn(rawSodium(), '_malloc').mockReturnValue(0);
		try {
			expect(() => allocateHeapRegions({ key: 32 })).toThrow(new Error('libsodium: out of WASM memory'));
		} finally {
			malloc.mockRestore();
		}
	});
});

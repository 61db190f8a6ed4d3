/**
 * libsodium's WebAssembly as the inbox ships it (docs/crypto-worker.md, "libsodium's WebAssembly"): the
 * crypto worker streams the module in from a `.wasm` file of the build, served as `application/wasm` with
 * the headers of every static file, and its script no longer carries the module as base64.
 */
import type { Response } from '@playwright/test';
import { expect, readyAgent, test } from './support/inbox-e2e';

const WASM_FILE = /^\/_app\/immutable\/workers\/assets\/libsodium-sumo-[\w-]+\.wasm$/;

test('the crypto worker makes a key on the module it streamed from libsodium-sumo’s .wasm file', async ({ page, inbox }) => {
	const fetched: Response[] = [];
	page.on('response', (response) => {
		if (WASM_FILE.test(new URL(response.url()).pathname)) fetched.push(response);
	});
	// signs in and makes the agent's key in the worker: Argon2id, X25519, Ed25519 on libsodium
	await readyAgent(page, inbox, 'wasm');

	expect(fetched.length).toBeGreaterThan(0);
	expect(new Set(fetched.map((response) => response.url())).size).toBe(1);
	const headers = await fetched[0].allHeaders();
	expect({
		status: fetched[0].status(),
		type: headers['content-type'],
		sniffing: headers['x-content-type-options'],
		cache: headers['cache-control'],
		policy: headers['content-security-policy'],
		frames: headers['x-frame-options']
	}).toEqual({
		status: 200,
		type: 'application/wasm',
		sniffing: 'nosniff',
		cache: 'public,max-age=31536000,immutable',
		policy: "default-src 'none'; frame-ancestors 'none'; sandbox",
		frames: 'DENY'
	});
	expect(page.workers().length).toBeGreaterThan(0);
	for (const worker of page.workers()) {
		const script = await (await page.request.get(worker.url())).text();
		expect([worker.url(), script.includes('AGFzbQ')]).toEqual([worker.url(), false]);
	}
});

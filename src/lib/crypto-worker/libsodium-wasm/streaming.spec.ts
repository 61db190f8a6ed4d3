import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlinedModule, withoutInlinedModule } from './plugin';
import { withStreamedWasm, type ModuleFactory } from './streaming';

const SCRIPT = readFileSync(join(process.cwd(), 'node_modules/libsodium-sumo/dist/modules-sumo-esm/libsodium-sumo.mjs'), 'utf8');

/** What these tests call of libsodium-sumo's module. */
interface RawLibsodium {
	_sodium_init(): number;
	_crypto_generichash_bytes(): number;
}

let server: Server;
let origin: string;
let folder: string;
/** libsodium-sumo's factory from its script as the browser gets it: its inlined module emptied. */
let createLibsodium: ModuleFactory<RawLibsodium>;
const randomValue = () => crypto.getRandomValues(new Uint32Array(1))[0];

beforeAll(async () => {
	const { bytes } = inlinedModule(SCRIPT);
	server = createServer((request, response) => {
		if (request.url === '/libsodium-sumo.wasm') response.writeHead(200, { 'content-type': 'application/wasm' }).end(bytes);
		else if (request.url === '/as-text.wasm') response.writeHead(200, { 'content-type': 'text/plain' }).end(bytes);
		else response.writeHead(404).end();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	folder = mkdtempSync(join(tmpdir(), 'libsodium-wasm-'));
	const script = join(folder, 'libsodium-sumo.mjs');
	writeFileSync(script, withoutInlinedModule(SCRIPT));
	createLibsodium = ((await import(/* @vite-ignore */ pathToFileURL(script).href)) as { default: ModuleFactory<RawLibsodium> }).default;
});

afterAll(async () => {
	await new Promise<void>((resolve) => server.close(() => resolve()));
	rmSync(folder, { recursive: true, force: true });
});

describe('libsodium\'s WebAssembly as a file of its own (docs/crypto-worker.md, "libsodium\'s WebAssembly")', () => {
	it('takes the one module out of libsodium-sumo’s script: 284,995 bytes of WebAssembly, none of its base64 left', () => {
		const { bytes } = inlinedModule(SCRIPT);
		expect([bytes.length, bytes.subarray(0, 4).toString('latin1')]).toEqual([284_995, '\0asm']);
		const emptied = withoutInlinedModule(SCRIPT);
		expect(SCRIPT.length - emptied.length).toBe(Math.ceil(284_995 / 3) * 4);
		expect(emptied).not.toContain('AGFzbQ');
		expect(() => inlinedModule(emptied)).toThrow(/holds 0 inlined WebAssembly modules/);
	});

	it('runs libsodium on the module it streams in, with no base64 to decode', async () => {
		const libsodium = await withStreamedWasm(createLibsodium, `${origin}/libsodium-sumo.wasm`)({ getRandomValue: randomValue });
		expect(libsodium._sodium_init()).toBe(0);
		expect(libsodium._crypto_generichash_bytes()).toBe(32);
	});

	it('rejects, instead of waiting for ever, when the file is missing or not served as application/wasm', async () => {
		for (const path of ['/missing.wasm', '/as-text.wasm']) {
			await expect(withStreamedWasm(createLibsodium, `${origin}${path}`)({ getRandomValue: randomValue })).rejects.toThrow(TypeError);
		}
	});
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestListener, type Handler } from './request-listener';

const NOTHING = "default-src 'none'; frame-ancestors 'none'; sandbox";
let server: Server | undefined;

afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(handler: Handler): Promise<string> {
	server = createServer(requestListener(handler, ['https://files.example.com']));
	await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('each request of the Node server (docs/inbox-api.md §1)', () => {
	it('gets the base headers before the handler answers, which may set its own over them', async () => {
		const url = await serve((request, response) => {
			if (request.url === '/page') response.setHeader('content-security-policy', "default-src 'self'");
			response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
		});
		const file = await fetch(`${url}/favicon.svg`);
		expect([file.status, file.headers.get('content-security-policy'), file.headers.get('x-content-type-options')]).toEqual([
			200,
			NOTHING,
			'nosniff'
		]);
		expect([
			file.headers.get('cross-origin-opener-policy'),
			file.headers.get('referrer-policy'),
			file.headers.get('x-frame-options')
		]).toEqual(['same-origin', 'no-referrer', 'DENY']);
		expect((await fetch(`${url}/page`)).headers.get('content-security-policy')).toBe("default-src 'self'");
		expect((await fetch(`${url}/_app/immutable/workers/entry-x.js`)).headers.get('content-security-policy')).toBe(
			"default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; frame-ancestors 'none'; connect-src 'self' blob: https://files.example.com"
		);
	});

	it('answers 500 when the handler fails, with the base headers, and serves the next request', async () => {
		const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
		let calls = 0;
		const url = await serve(async (_request, response) => {
			if (++calls === 1) throw new Error('the handler failed');
			response.end('ok');
		});
		const failed = await fetch(`${url}/login`);
		expect([failed.status, await failed.text(), failed.headers.get('content-security-policy')]).toEqual([
			500,
			'Internal Server Error',
			NOTHING
		]);
		expect(logged).toHaveBeenCalledWith(new Error('the handler failed'));
		expect(await (await fetch(`${url}/login`)).text()).toBe('ok');
		logged.mockRestore();
	});

	it('cuts the connection when the handler fails after its answer began', async () => {
		const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
		const url = await serve(async (_request, response) => {
			response.writeHead(200, { 'content-length': '10' });
			response.write('half');
			throw new Error('the stream broke');
		});
		const response = await fetch(url);
		await expect(response.text()).rejects.toThrow();
		logged.mockRestore();
	});
});

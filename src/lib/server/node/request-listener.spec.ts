import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLog } from '../log';
import { currentRequest } from '../request-context';
import { requestListener, type Handler } from './request-listener';

const NOTHING = "default-src 'none'; frame-ancestors 'none'; sandbox";
let server: Server | undefined;
/** The lines the server logged, parsed. */
let logged: Record<string, unknown>[] = [];

afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(handler: Handler): Promise<string> {
	logged = [];
	const log = createLog('debug', { write: (line: string) => void logged.push(JSON.parse(line)) });
	server = createServer(requestListener(handler, { storageOrigins: ['https://files.example.com'], log }));
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

	it('answers 500 when the handler fails, with the base headers, logs why, and serves the next request', async () => {
		let calls = 0;
		const url = await serve(async (_request, response) => {
			if (++calls === 1) throw new Error('the handler failed');
			response.end('ok');
		});
		const failed = await fetch(`${url}/login`, { headers: { 'x-request-id': 'lb-17' } });
		expect([failed.status, await failed.text(), failed.headers.get('content-security-policy')]).toEqual([
			500,
			'Internal Server Error',
			NOTHING
		]);
		expect(logged[0]).toMatchObject({ level: 'error', msg: 'the request handler failed', requestId: 'lb-17' });
		expect(logged[0].reason).toMatch(/^Error: the handler failed\n\s+at /);
		expect(await (await fetch(`${url}/login`)).text()).toBe('ok');
	});

	it('gives each request an id, kept from X-Request-Id when sane, which its answer and every line logged for it carry', async () => {
		const url = await serve(async (_request, response) => {
			const context = currentRequest()!;
			await new Promise((resolve) => setTimeout(resolve, 1));
			context.route = '/api/conversations/[conversationId]';
			context.accountId = 'acc_AAAAAAAAAAAAAAAA';
			response.writeHead(201).end(context.requestId);
		});
		const kept = await fetch(`${url}/api/conversations/cnv_1?token=never-logged`, {
			headers: { 'x-request-id': 'Root=1-67891233-abcdef' }
		});
		expect([kept.status, kept.headers.get('x-request-id'), await kept.text()]).toEqual([
			201,
			'Root=1-67891233-abcdef',
			'Root=1-67891233-abcdef'
		]);
		const made = await fetch(url, { headers: { 'x-request-id': 'with a space' } });
		const madeId = made.headers.get('x-request-id');
		expect(madeId).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
		expect(await made.text()).toBe(madeId);
		await expect.poll(() => logged.length).toBe(2);
		expect(logged.map(({ time, pid, hostname, ms, ...line }) => [typeof time, typeof pid, typeof hostname, typeof ms, line])).toEqual(
			[{ requestId: 'Root=1-67891233-abcdef' }, { requestId: madeId }].map(({ requestId }) => [
				'string',
				'number',
				'string',
				'number',
				{
					level: 'info',
					msg: 'request',
					requestId,
					route: '/api/conversations/[conversationId]',
					accountId: 'acc_AAAAAAAAAAAAAAAA',
					method: 'GET',
					status: 201
				}
			])
		);
		expect(JSON.stringify(logged)).not.toContain('never-logged');
	});

	it('logs the health probes of a load balancer at debug, and an answer the client left unfinished as aborted', async () => {
		const url = await serve(async (request, response) => {
			currentRequest()!.route = request.url === '/api/health' ? '/api/health' : '/api/events';
			if (request.url === '/api/health') response.writeHead(503).end();
			else response.writeHead(200).write('data: 1\n\n');
		});
		expect((await fetch(`${url}/api/health`)).status).toBe(503);
		await new Promise<void>((resolve) => {
			const events = get(`${url}/api/events`, (answer) =>
				answer.once('data', () => {
					events.destroy();
					resolve();
				})
			);
		});
		await expect.poll(() => logged.length).toBe(2);
		expect(logged.map(({ level, route, status, aborted }) => ({ level, route, status, aborted }))).toEqual([
			{ level: 'debug', route: '/api/health', status: 503, aborted: undefined },
			{ level: 'info', route: '/api/events', status: 200, aborted: true }
		]);
	});

	it('cuts the connection when the handler fails after its answer began', async () => {
		const url = await serve(async (_request, response) => {
			response.writeHead(200, { 'content-length': '10' });
			response.write('half');
			throw new Error('the stream broke');
		});
		const response = await fetch(url);
		await expect(response.text()).rejects.toThrow();
	});
});

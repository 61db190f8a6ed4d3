/**
 * The control API `/_sim/*` (docs/simulator.md): unauthenticated, so it answers only requests from
 * the loopback interface, and only pages of the simulator's own origin may call it from a browser
 * (JSON bodies also force a CORS preflight, which it never grants).
 */
import { ContractError } from '../../lib/crypto/index';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { errorResponse, MAX_JSON_BODY_BYTES, parseJsonObject, readBody, sendError, sendJson } from '../http/io';
import { Router } from '../http/router';
import { companyRoutes } from './companies';
import { customerRoutes } from './customers';
import { operationRoutes } from './operations';
import { seedRoutes } from './seed';
import type { BytesResponse, ControlRoute } from './types';

const controlRoutes = new Router<ControlRoute>();
for (const [method, path, route] of [...companyRoutes, ...customerRoutes, ...operationRoutes, ...seedRoutes])
	controlRoutes.add(method, path, route);
controlRoutes.add('GET', '/_sim/health', { run: (ctx) => ({ status: 200, body: { ok: true, now: ctx.clock.read().now } }) });

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
export function isLoopbackAddress(address: string): boolean {
	const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
	return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

export function isLoopback(request: IncomingMessage): boolean {
	return isLoopbackAddress(request.socket.remoteAddress ?? '');
}

/** A browser request from another origin (a page trying to drive the simulator) is refused. */
function isForeignOrigin(request: IncomingMessage): boolean {
	const origin = request.headers.origin;
	if (origin === undefined) return false;
	return origin !== `http://${request.headers.host}` && origin !== `https://${request.headers.host}`;
}

function isBytes(result: unknown): result is BytesResponse {
	return typeof result === 'object' && result !== null && 'bytes' in result;
}

export async function handleControl(ctx: SimContext, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
	try {
		if (!isLoopback(request)) throw new ContractError('FORBIDDEN', 'the control API answers only on the loopback interface');
		if (isForeignOrigin(request)) throw new ContractError('FORBIDDEN', 'the control API refuses pages of other origins');
		const method = request.method ?? 'GET';
		const match = controlRoutes.match(method, url.pathname);
		if (match.kind === 'none') throw new ContractError('NOT_FOUND', `no control endpoint ${method} ${url.pathname}`);
		if (match.kind === 'method') {
			sendJson(response, {
				...errorResponse(new ContractError('METHOD_NOT_ALLOWED', `allowed: ${match.allowed.join(', ')}`)),
				headers: { allow: match.allowed.join(', ') }
			});
			return;
		}
		const raw = await readBody(request, match.handler.maxBodyBytes ?? MAX_JSON_BODY_BYTES);
		if (raw.length > 0 && !/^application\/json\s*(;.*)?$/i.test(request.headers['content-type'] ?? '')) {
			throw new ContractError('INVALID_REQUEST', 'Content-Type must be application/json');
		}
		const body = raw.length === 0 ? {} : parseJsonObject(raw);
		const result = match.handler.run(ctx, { body, params: match.params, query: url.searchParams });
		if (isBytes(result)) {
			response.writeHead(result.status, { ...result.headers, 'content-length': result.bytes.length, 'cache-control': 'no-store' });
			response.end(result.bytes);
		} else sendJson(response, result);
	} catch (error) {
		sendError(response, error);
	}
}

/**
 * The `/v1` pipeline (contract 5.1; docs/contract-gaps.md §2, §3): the API key, the body (at most
 * 1 MiB), the signature, then the `Idempotency-Key` of every non-GET request, then the route, whose
 * answer is stored for idempotency. Bodies are JSON objects; POSTs without data carry `{}`.
 */
import { ContractError } from '../../lib/crypto/index';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { errorResponse, readBody, sendJson, type JsonResponse } from '../http/io';
import { authenticateApiKey, verifyRequestSignature } from './auth';
import { IdempotencyGate, requestFingerprint, requireIdempotencyKey } from './idempotency';
import { parseV1JsonObject } from './json';
import { parseQuery } from './query';
import type { V1Request } from './request';
import { v1Routes } from './routes';

function headerOf(request: IncomingMessage, name: string): string | undefined {
	const value = request.headers[name];
	return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * `Content-Type: application/json` when there is a body (contract 5.1); a POST always has one. A GET
 * without a body is not asked for a Content-Type: there is nothing for it to describe.
 */
function parseBody(method: string, contentType: string | undefined, raw: Buffer): Record<string, unknown> {
	if (raw.length === 0) {
		if (method === 'GET') return {};
		throw new ContractError('INVALID_REQUEST', 'the body is empty; POSTs without data carry {}');
	}
	if (method === 'GET') throw new ContractError('INVALID_REQUEST', 'a GET carries no body');
	if (!/^application\/json\s*(;.*)?$/i.test(contentType ?? '')) {
		throw new ContractError('INVALID_REQUEST', 'Content-Type must be application/json when there is a body');
	}
	return parseV1JsonObject(raw);
}

export class V1Handler {
	private readonly idempotency: IdempotencyGate;

	constructor(private readonly ctx: SimContext) {
		this.idempotency = new IdempotencyGate(ctx);
	}

	prune(): void {
		this.idempotency.prune();
	}

	async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
		const result = await this.respond(request, url);
		// The rest of an oversized body is not read: close the connection after answering.
		if (result.status === 413) result.headers = { ...result.headers, connection: 'close' };
		sendJson(response, result);
	}

	private async respond(request: IncomingMessage, url: URL): Promise<JsonResponse> {
		const method = request.method ?? 'GET';
		const pathAndQuery = request.url ?? url.pathname;
		try {
			const company = authenticateApiKey(this.ctx, headerOf(request, 'authorization'));
			const raw = await readBody(request);
			verifyRequestSignature(this.ctx, company, { header: headerOf(request, 'x-service-signature'), method, pathAndQuery, body: raw });
			const execute = () => this.route(company, method, url, headerOf(request, 'content-type'), raw);
			// Contract 5.1 asks for an Idempotency-Key on other requests only: a GET's is not looked at.
			if (method === 'GET') return execute();
			const key = requireIdempotencyKey(headerOf(request, 'idempotency-key'));
			return await this.idempotency.run(company, key, requestFingerprint(method, pathAndQuery, raw), execute);
		} catch (error) {
			return errorResponse(error);
		}
	}

	private route(company: V1Request['company'], method: string, url: URL, contentType: string | undefined, raw: Buffer): JsonResponse {
		const match = v1Routes.match(method, url.pathname);
		if (match.kind === 'none') throw new ContractError('NOT_FOUND', `no endpoint ${method} ${url.pathname}`);
		if (match.kind === 'method') {
			const error = errorResponse(new ContractError('METHOD_NOT_ALLOWED', `${url.pathname} allows ${match.allowed.join(', ')}`));
			return { ...error, headers: { allow: match.allowed.join(', ') } };
		}
		const query = parseQuery(url.searchParams, match.handler.query);
		const body = parseBody(method, contentType, raw);
		return match.handler.run(this.ctx, { company, method, query, body }, match.params);
	}
}

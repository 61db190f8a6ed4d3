/**
 * The signing proxy `/api/v1/...` (docs/inbox-api.md §6): the browser's only way to `/v1`. The gate has
 * matched the path to a `/v1` route the proxy forwards and checked the caller against the access table
 * (api/access-policy.ts); the conversation domain applies the rules of the request and keeps what the
 * inbox must know of it (conversations/service-requests.ts). Here: the body, read within the route's
 * limit, sent as exactly the bytes the upstream client signs, with the browser's Idempotency-Key (or one
 * it makes); every browser header and credential stays behind; the service's status and JSON body come
 * back serialized again under the inbox's own Content-Type — anything that is not JSON is refused
 * (`502 INVALID_RESPONSE`), never relayed.
 */
import { randomBytes } from 'node:crypto';
import { ContractError } from '../../errors';
import { b64uEncode } from '../../crypto/encoding';
import { readIdempotencyKey } from '../../crypto/rules';
import type { Session } from '../auth/sessions';
import { forwardForAgent, type ServiceRequestDeps } from '../conversations/service-requests';
import { decodeUtf8, json, parseJsonObject, readBodyBytes, requireJsonContentType } from '../http/responses';
import type { RawResponse } from '../upstream/client';
import type { AllowedRequest } from './allowlist';

/** Response headers of the service the browser may see; everything else stays here. */
const PASSED_HEADERS = ['idempotent-replayed', 'retry-after'];

/** The browser's Idempotency-Key, or one made here (docs/inbox-api.md §6). */
function idempotencyKeyFor(request: Request): string {
	return readIdempotencyKey(request.headers.get('idempotency-key')) ?? `prx_${b64uEncode(randomBytes(18))}`;
}

async function readProxiedBody(request: Request, allowed: AllowedRequest): Promise<{ text: string; object: Record<string, unknown> }> {
	const bytes = await readBodyBytes(request, allowed.definition.maxBody);
	if (bytes.length === 0) return { text: '{}', object: {} };
	requireJsonContentType(request);
	const text = decodeUtf8(bytes);
	return { text, object: parseJsonObject(text) };
}

/** Forwards the request the gate allowed, for the session's account, and answers with the service's answer. */
export async function proxyRequest(
	deps: ServiceRequestDeps,
	session: Session,
	request: Request,
	allowed: AllowedRequest
): Promise<Response> {
	const { route, pathAndQuery, definition } = allowed;
	if (definition.method === 'GET') return answer(await forwardForAgent(deps, session.account, { route, method: 'GET', pathAndQuery }));
	const idempotencyKey = idempotencyKeyFor(request);
	const body = await readProxiedBody(request, allowed);
	const response = await forwardForAgent(deps, session.account, { route, method: 'POST', pathAndQuery, body, idempotencyKey });
	if (response.status >= 500) {
		throw new ContractError('UPSTREAM_UNAVAILABLE', `the service answered ${response.status}; retry with the same Idempotency-Key`);
	}
	return answer(response, idempotencyKey);
}

/** The JSON value of the service's answer; any other type or body is `502 INVALID_RESPONSE`, so it never reaches the browser. */
function upstreamJson(response: RawResponse): unknown {
	const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
	const refused = (what: string) =>
		new ContractError('INVALID_RESPONSE', `the service answered ${response.status} with ${what}; the inbox relays only JSON`);
	if (type !== 'application/json') throw refused(type ? `Content-Type ${type.slice(0, 100)}` : 'no Content-Type');
	try {
		return JSON.parse(decodeUtf8(response.body));
	} catch {
		throw refused('a body that is not JSON');
	}
}

function answer(response: RawResponse, idempotencyKey?: string): Response {
	if (response.status >= 500) throw new ContractError('UPSTREAM_UNAVAILABLE', `the service answered ${response.status}`);
	const headers: Record<string, string> = {};
	for (const name of PASSED_HEADERS) {
		const value = response.headers.get(name);
		if (value !== null) headers[name] = value;
	}
	if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
	if (response.status === 204) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store', ...headers } });
	return json(upstreamJson(response), response.status, headers);
}

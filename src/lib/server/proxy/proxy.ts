/**
 * The signing proxy `/api/v1/...` (docs/inbox-api.md §6): the browser's only way to `/v1`. It checks the
 * session, the role's allowlist and the body, sends exactly the bytes it signs with the browser's
 * Idempotency-Key (or one it makes), keeps every browser header and credential behind, and answers with
 * the service's status and JSON body, serialized again under the inbox's own Content-Type: anything
 * that is not JSON is refused (`502 INVALID_RESPONSE`), never relayed. Invitations run through the invitation flow so their secret is stored;
 * successful sends, reads and agent-wrap uploads keep the inbox's own state in step.
 */
import { randomBytes } from 'node:crypto';
import { ContractError } from '../../errors';
import { b64uEncode } from '../../crypto/encoding';
import { isId } from '../../crypto/rules';
import type { Session } from '../auth/sessions';
import { createInvitation, readExpiresIn } from '../conversations/invitations';
import { claimAuthorship } from '../db/message-authors';
import { decodeUtf8, json, parseJsonObject, readBodyBytes, requireJsonContentType } from '../http/responses';
import type { RawResponse } from '../upstream/client';
import type { Inbox } from '../inbox';
import { errorText } from '../log';
import { INTERACTIVE_RETRY } from '../upstream/client';
import { allowRequest, type AllowedRequest } from './allowlist';
import { recordProxiedEffects } from './effects';

/** Response headers of the service the browser may see; everything else stays here. */
const PASSED_HEADERS = ['idempotent-replayed', 'retry-after'];

function idempotencyKeyFor(request: Request): string {
	const given = request.headers.get('idempotency-key');
	if (given === null) return `prx_${b64uEncode(randomBytes(18))}`;
	if (!/^[\x21-\x7e]{1,128}$/.test(given)) {
		throw new ContractError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 128 printable ASCII characters (0x21–0x7e)');
	}
	return given;
}

async function readProxiedBody(request: Request, allowed: AllowedRequest): Promise<{ text: string; object: Record<string, unknown> }> {
	const bytes = await readBodyBytes(request, allowed.definition.maxBody);
	if (bytes.length === 0) return { text: '{}', object: {} };
	requireJsonContentType(request);
	const text = decodeUtf8(bytes);
	return { text, object: parseJsonObject(text) };
}

export async function proxyRequest(
	inbox: Inbox,
	session: Session,
	request: Request,
	rest: string,
	search: URLSearchParams
): Promise<Response> {
	const method = request.method.toUpperCase();
	const allowed = allowRequest(session.account.role, method, rest, search);
	if (method === 'GET') {
		return answer(await inbox.upstream.send({ method, pathAndQuery: allowed.pathAndQuery }, INTERACTIVE_RETRY));
	}

	const idempotencyKey = idempotencyKeyFor(request);
	const body = await readProxiedBody(request, allowed);
	if (allowed.route === 'createInvite' || allowed.route === 'reinvite') {
		const invitation = await createInvitation(inbox, {
			account: session.account,
			conversationId: allowed.route === 'reinvite' ? allowed.params[0] : undefined,
			expiresIn: readExpiresIn(body.object),
			idempotencyKey
		});
		return json(invitation, 201, { 'idempotency-key': idempotencyKey });
	}

	if (allowed.route === 'sendMessage') await recordAuthor(inbox, session, body.object);
	const response = await inbox.upstream.send(
		{ method: 'POST', pathAndQuery: allowed.pathAndQuery, body: body.text, idempotencyKey },
		INTERACTIVE_RETRY
	);
	if (response.status >= 500) {
		throw new ContractError('UPSTREAM_UNAVAILABLE', `the service answered ${response.status}; retry with the same Idempotency-Key`);
	}
	const relayed = answer(response, idempotencyKey);
	if (response.status >= 200 && response.status < 300) {
		// Stryker disable next-line all: equivalent: the error is swallowed either way; only the operator's log line differs
		await recordProxiedEffects(inbox, session, allowed, body.text, response.body).catch((error) => {
			inbox.log.warn('proxied request succeeded but the inbox could not record it', { route: allowed.route, reason: errorText(error) });
		});
	}
	return relayed;
}

/**
 * The sender of a message is recorded before it goes to the service (docs/inbox-api.md §4 "Message
 * authors"). A clientMessageId another account used first is refused: the service would answer with
 * that account's message (contract 3, a repeated clientMessageId), and this agent would pass it off as theirs.
 * A body without a usable id is left to the service, which refuses it.
 */
async function recordAuthor(inbox: Inbox, session: Session, body: Record<string, unknown>): Promise<void> {
	const conversationId = body.conversationId;
	const clientMessageId = (body.encryption as { clientMessageId?: unknown } | null)?.clientMessageId;
	if (!isId(conversationId) || !isId(clientMessageId)) return;
	const held = await claimAuthorship(inbox.db, { conversationId, clientMessageId }, session.account, new Date(inbox.now()));
	if (!held) throw new ContractError('STATE_CONFLICT', 'this clientMessageId belongs to a message another account sent: use a new one');
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

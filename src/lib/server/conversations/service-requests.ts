/**
 * What an agent asks of the service about a conversation through the signing proxy (docs/inbox-api.md
 * §6; contract 4): sending, closing, read receipts, typing, history and attachments. The gate has already
 * checked who may (api/access-policy.ts); the rules here are what one account may spend (usage/caps.ts),
 * who sent a reply (recorded before it goes out), and what the inbox keeps of each success
 * (service-effects.ts). The proxy only reads the request, signs it through the upstream client and relays
 * the answer.
 */
import { ContractError } from '../../errors';
import { isId } from '../../crypto/rules';
import type { V1RouteName } from '../../wire/v1';
import type { Account } from '../db/accounts';
import type { Database } from '../db/database';
import { claimAuthorship } from '../db/message-authors';
import { errorText, type Logger } from '../log';
import { INTERACTIVE_RETRY, type RawResponse, type UpstreamClient } from '../upstream/client';
import type { UsageCounter } from '../usage/caps';
import { recordServiceEffects } from './service-effects';

export interface ServiceRequestDeps {
	db: Database;
	upstream: UpstreamClient;
	usage: UsageCounter;
	log: Logger;
	now: () => number;
}

export interface ServiceRequest {
	route: V1RouteName;
	method: 'GET' | 'POST';
	/** `/v1/...` with its canonical query: exactly what is signed and sent. */
	pathAndQuery: string;
	/** The JSON body as received (its text is sent as is) and parsed; none for GET. */
	body?: { text: string; object: Record<string, unknown> };
	idempotencyKey?: string;
}

/** Forwards one request for `account`, within its caps, and keeps what the inbox must know of its success. */
export async function forwardForAgent(deps: ServiceRequestDeps, account: Account, request: ServiceRequest): Promise<RawResponse> {
	if (request.method === 'GET') return deps.upstream.send({ method: 'GET', pathAndQuery: request.pathAndQuery }, INTERACTIVE_RETRY);
	const now = new Date(deps.now());
	if (request.route === 'createAttachmentUpload') await deps.usage.spend(account.accountId, 'upload', now);
	await deps.usage.spend(account.accountId, 'write', now);
	if (request.route === 'sendMessage') await recordAuthor(deps.db, account, request.body?.object ?? {}, now);
	const response = await deps.upstream.send(
		{ method: 'POST', pathAndQuery: request.pathAndQuery, body: request.body?.text ?? '{}', idempotencyKey: request.idempotencyKey },
		INTERACTIVE_RETRY
	);
	// Stryker disable next-line all: equivalent: an error's body is no record of the route, so recording it throws, and the failure is swallowed below
	if (response.status >= 200 && response.status < 300) {
		// Stryker disable next-line all: equivalent: the error is swallowed either way; only the operator's log line differs
		await recordServiceEffects(deps.db, account, request.route, response.body, new Date(deps.now())).catch((error) => {
			deps.log.warn('the service took the request but the inbox could not record it', { route: request.route, reason: errorText(error) });
		});
	}
	return response;
}

/**
 * The sender of a message is recorded before it goes to the service (docs/inbox-api.md §4 "Message
 * authors"). A clientMessageId another account used first is refused: the service would answer with
 * that account's message (contract 3, a repeated clientMessageId), and this agent would pass it off as theirs.
 * A body without a usable id is left to the service, which refuses it.
 */
async function recordAuthor(db: Database, account: Account, body: Record<string, unknown>, now: Date): Promise<void> {
	const conversationId = body.conversationId;
	const clientMessageId = (body.encryption as { clientMessageId?: unknown } | null)?.clientMessageId;
	if (!isId(conversationId) || !isId(clientMessageId)) return;
	const held = await claimAuthorship(db, { conversationId, clientMessageId }, account, now);
	if (!held) throw new ContractError('STATE_CONFLICT', 'this clientMessageId belongs to a message another account sent: use a new one');
}

/**
 * Control API for scale tests (docs/simulator.md): many active conversations at once, as if customers
 * had redeemed invitations before the business's webhook URL was set (no events), each with its own K
 * sealed for the company's current key (contract 2.4); and how many agent-wrap uploads the service
 * carried out per conversation (replays of an Idempotency-Key do not count), to prove a grant uploads once.
 */
import {
	ContractError,
	b64uEncode,
	generateX25519KeyPair,
	sealConversationKey,
	sodium,
	b64uDecode,
	isIntegerIn,
	KEY_BYTES
} from '../../lib/crypto/index';
import { CONVERSATION_KEY_VERSION } from '../customer/redeem';
import { createInvitation } from '../service/conversations';
import { findCompany } from './companies';
import type { ControlRoute } from './types';

export const MAX_SEEDED_CONVERSATIONS = 20_000;

/** `POST /_sim/companies/{id}/conversations` `{ count }` → `201 { conversationIds }`. */
const seedConversations: ControlRoute['run'] = (ctx, { body, params }) => {
	const company = findCompany(ctx, params.id);
	if (!isIntegerIn(body.count, 1, MAX_SEEDED_CONVERSATIONS))
		throw new ContractError('INVALID_REQUEST', `count must be an integer from 1 to ${MAX_SEEDED_CONVERSATIONS}`);
	const companyKey = b64uDecode(company.currentKey.publicKey);
	const conversationIds: string[] = [];
	for (let i = 0; i < body.count; i++) {
		const invite = createInvitation(ctx, company, 3600);
		const conversation = ctx.store.conversations.get(invite.conversationId)!;
		const user = generateX25519KeyPair();
		const conversationKey = sodium().randombytes_buf(KEY_BYTES);
		const seal = (recipientPublicKey: Uint8Array) =>
			sealConversationKey({
				conversationKey,
				conversationId: conversation.conversationId,
				keyVersion: CONVERSATION_KEY_VERSION,
				recipientPublicKey
			});
		invite.redeemedAtMs = ctx.clock.nowMs();
		conversation.status = 'active';
		conversation.userPublicKey = b64uEncode(user.publicKey);
		conversation.wrapForCompany = seal(companyKey);
		conversation.wrapForUser = seal(user.publicKey);
		conversation.keyVersion = CONVERSATION_KEY_VERSION;
		conversation.startedAtMs = ctx.clock.nowMs();
		conversationKey.fill(0);
		conversationIds.push(conversation.conversationId);
		ctx.store.changed('invites', invite.inviteId);
		ctx.store.changed('conversations', conversation.conversationId);
	}
	return { status: 201, body: { conversationIds } };
};

/** `GET /_sim/companies/{id}/agent-wrap-uploads` → `{ data: [{ conversationId, uploads, agentKeyIds }] }`. */
const agentWrapUploads: ControlRoute['run'] = (ctx, { params }) => {
	const company = findCompany(ctx, params.id);
	const data = ctx.store
		.conversationsOf(company.companyId)
		.filter((conversation) => (conversation.agentWrapUploads ?? 0) > 0)
		.map((conversation) => ({
			conversationId: conversation.conversationId,
			uploads: conversation.agentWrapUploads ?? 0,
			agentKeyIds: conversation.agentWraps.map((wrap) => wrap.agentKeyId)
		}));
	return { status: 200, body: { data } };
};

export const seedRoutes: [string, string, ControlRoute][] = [
	['POST', '/_sim/companies/:id/conversations', { run: seedConversations }],
	['GET', '/_sim/companies/:id/agent-wrap-uploads', { run: agentWrapUploads }]
];

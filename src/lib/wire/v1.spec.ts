import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeOfCall } from '$test-support/error-codes';
import { ContractError } from '../errors';
import {
	matchV1Route,
	parseConversationStarted,
	parseMessageCreated,
	parseWebhookEvent,
	v1,
	v1ErrorFromResponse,
	V1_ROUTES,
	type ConversationRecord
} from './v1';

const sealed = 'A'.repeat(140);
const userKey = 'B'.repeat(42) + 'A';

const conversation: ConversationRecord = {
	conversationId: 'conv_abc',
	status: 'active',
	keyVersion: 1,
	wrapForCompany: { keyVersion: 1, sealed },
	userPublicKey: userKey,
	userDeleted: false,
	createdAt: '2026-11-22T10:00:00Z',
	startedAt: '2026-11-22T10:01:00Z',
	lastMessageAt: null,
	closedAt: null
};

describe('/v1 requests (contract 4, contract-gaps §4–§9)', () => {
	it('builds method, signed path and exact body', () => {
		expect(v1.listConversations({ status: 'active', limit: 20 })).toMatchObject({
			method: 'GET',
			pathAndQuery: '/v1/conversations?status=active&limit=20',
			body: undefined
		});
		expect(v1.createInvite()).toMatchObject({ method: 'POST', pathAndQuery: '/v1/invites', body: '{}' });
		expect(v1.rewrap('conv_abc', { keyVersion: 1, sealed })).toMatchObject({
			pathAndQuery: '/v1/conversations/conv_abc/rewrap',
			body: JSON.stringify({ wrapForUser: { keyVersion: 1, sealed } })
		});
		expect(v1.listMessages('conv_abc', { before: 'msg_1', limit: 50 }).pathAndQuery).toBe(
			'/v1/conversations/conv_abc/messages?before=msg_1&limit=50'
		);
		expect(v1.typing('conv_abc').body).toBe('{}');
	});

	it('refuses an id that would change the path', () => {
		expect(codeOfCall(() => v1.getConversation('../roster'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => v1.getAttachmentDownload('conv_abc', 'att_1/../x'))).toBe('INVALID_INPUT');
	});

	it('every request built here matches its own route in the table', () => {
		const built = [
			v1.createInvite(),
			v1.listConversations(),
			v1.getConversation('c'),
			v1.reinvite('c'),
			v1.rewrap('c', { keyVersion: 1, sealed }),
			v1.listMessages('c'),
			v1.markRead('c', 'm'),
			v1.typing('c'),
			v1.close('c'),
			v1.createAttachmentUpload('c', 16),
			v1.getAttachmentDownload('c', 'att_12345678'),
			v1.listAgentWraps('c'),
			v1.uploadAgentWraps('c', { rosterVersion: 1, wraps: [] }),
			v1.getRoster(),
			v1.listDeliveries(),
			v1.retryDelivery('dlv_1')
		];
		for (const request of built) {
			expect(matchV1Route(request.method, request.pathAndQuery.split('?')[0])?.name).toBe(request.route);
		}
		expect(built.map((request) => request.route).sort()).toEqual(
			Object.keys(V1_ROUTES)
				.filter((name) => name !== 'sendMessage' && name !== 'uploadRoster')
				.sort()
		);
	});

	it('matches routes by method and whole path only', () => {
		expect(matchV1Route('GET', '/v1/conversations/conv_1/messages')).toEqual({ name: 'listMessages', params: ['conv_1'] });
		expect(matchV1Route('POST', '/v1/conversations/conv_1/messages')).toBeUndefined();
		expect(matchV1Route('GET', '/v1/conversations/conv_1/messages/')).toBeUndefined();
		expect(matchV1Route('GET', '/v1/conversations/a/b')).toBeUndefined();
		expect(matchV1Route('DELETE', '/v1/conversations/conv_1')).toBeUndefined();
	});
});

describe('/v1 responses', () => {
	it('reads a conversation and a page', () => {
		expect(v1.getConversation('conv_abc').parse(conversation)).toEqual(conversation);
		const page = v1.listConversations().parse({ data: [conversation], nextCursor: null });
		expect(page.data[0].conversationId).toBe('conv_abc');
	});

	it('answers INVALID_RESPONSE (502) naming the field for a malformed answer', () => {
		const error = (() => {
			try {
				v1.getConversation('conv_abc').parse({ ...conversation, status: 'open' });
			} catch (caught) {
				return caught as ContractError;
			}
		})();
		expect(error).toMatchObject({ code: 'INVALID_RESPONSE', status: 502 });
		expect(error?.message).toMatch(/status must be one of/);
		expect(codeOfCall(() => v1.getConversation('c').parse({ ...conversation, keyVersion: 1.5 }))).toBe('INVALID_RESPONSE');
		expect(
			codeOfCall(() =>
				v1.createInvite().parse({ inviteId: 'inv_1', conversationId: 'c', inviteUrl: 'https://x/i#s=1', shortCode: 'A', expiresAt: 't' })
			)
		).toBe('INVALID_RESPONSE');
	});

	it('maps error bodies to ContractError with the status', () => {
		expect(v1ErrorFromResponse(409, JSON.stringify({ error: { code: 'CONVERSATION_PENDING', message: 'not redeemed' } }))).toMatchObject({
			code: 'CONVERSATION_PENDING',
			status: 409,
			message: 'not redeemed'
		});
		expect(v1ErrorFromResponse(418, JSON.stringify({ error: { code: 'TEAPOT', message: 'short and stout' } }))).toMatchObject({
			code: 'INVALID_REQUEST',
			status: 418,
			message: 'TEAPOT: short and stout'
		});
		expect(v1ErrorFromResponse(502, '<html>bad gateway</html>')).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502 });
	});
});

describe('webhook bodies (contract 6, contract-gaps §9)', () => {
	const vectors = JSON.parse(readFileSync('vectors/conformance.json', 'utf8'));
	const vectorBody: string = vectors.hmac.webhooks[0].body;

	it('reads the public vector event (no messageId or seq in it)', () => {
		const event = parseWebhookEvent(vectorBody);
		expect(event).toMatchObject({ id: 'evt_WR-qdcHF70rn', idInBody: true, type: 'message.created' });
		const message = parseMessageCreated(event.data);
		expect(message).toMatchObject({
			conversationId: 'conv_cbIAtg8uWjjt',
			messageId: null,
			seq: null,
			senderType: 'user',
			contentType: 'text'
		});
		expect(message.encryption.clientMessageId).toBe('m_kDg-_Ic5_-9-SgSc');
	});

	it('takes the header event id when the body has none, and refuses a body without any', () => {
		expect(parseWebhookEvent('{"type":"x"}', 'evt_h')).toMatchObject({ id: 'evt_h', idInBody: false });
		expect(parseWebhookEvent('{"id":"evt_b","type":"x"}', 'evt_h')).toMatchObject({ id: 'evt_b', idInBody: true });
		expect(codeOfCall(() => parseWebhookEvent('{"type":"x"}'))).toBe('INVALID_REQUEST');
		expect(codeOfCall(() => parseWebhookEvent('[1]'))).toBe('INVALID_REQUEST');
		expect(codeOfCall(() => parseWebhookEvent('not json'))).toBe('INVALID_REQUEST');
	});

	it('keeps unknown types and fields', () => {
		const event = parseWebhookEvent('{"id":"evt_1","type":"brand.new","data":{"x":1},"extra":true}');
		expect(event).toMatchObject({ type: 'brand.new', data: { x: 1 } });
	});

	it('reads conversation.started with agent wraps, keeping the binding as received', () => {
		const started = parseConversationStarted({
			conversationId: 'conv_1',
			conversationKey: { keyVersion: 1, sealed },
			userPublicKey: userKey,
			inviteBinding: 'not base64url!',
			isReinvite: true,
			agentWraps: [{ agentKeyId: 'agk_12345678', rosterVersion: 2, wrap: { keyVersion: 1, sealed } }],
			somethingNew: 1
		});
		expect(started).toMatchObject({ inviteBinding: 'not base64url!', isReinvite: true, agentWraps: [{ agentKeyId: 'agk_12345678' }] });
		expect(
			codeOfCall(() =>
				parseConversationStarted({ conversationId: 'conv_1', conversationKey: { keyVersion: 0, sealed }, userPublicKey: userKey })
			)
		).toBe('INVALID_INPUT');
		expect(
			codeOfCall(() =>
				parseConversationStarted({ conversationId: 'conv_1', conversationKey: { keyVersion: 1, sealed }, userPublicKey: 'AAAA' })
			)
		).toBe('INVALID_INPUT');
	});
});

import { describe, expect, it } from 'vitest';
import { ContractError } from '../../errors';
import { V1_ROUTES, type V1RouteName } from '../../wire/v1';
import { allowRequest } from './allowlist';

/** What the proxy forwards: an agent's conversation work, and the list it probes the service with. */
const FORWARDED: V1RouteName[] = [
	'listConversations',
	'getConversation',
	'listMessages',
	'sendMessage',
	'markRead',
	'typing',
	'close',
	'createAttachmentUpload',
	'getAttachmentDownload'
];

/** A concrete path (after `/v1/`) of every route. */
const SAMPLE_PATHS: Record<V1RouteName, string> = {
	createInvite: 'invites',
	listConversations: 'conversations',
	getConversation: 'conversations/conv_abcdefgh',
	reinvite: 'conversations/conv_abcdefgh/reinvite',
	rewrap: 'conversations/conv_abcdefgh/rewrap',
	listMessages: 'conversations/conv_abcdefgh/messages',
	sendMessage: 'messages',
	markRead: 'conversations/conv_abcdefgh/read',
	typing: 'conversations/conv_abcdefgh/typing',
	close: 'conversations/conv_abcdefgh/close',
	createAttachmentUpload: 'conversations/conv_abcdefgh/attachments',
	getAttachmentDownload: 'conversations/conv_abcdefgh/attachments/att_12345678',
	listAgentWraps: 'conversations/conv_abcdefgh/agent-wraps',
	uploadAgentWraps: 'conversations/conv_abcdefgh/agent-wraps',
	getRoster: 'roster',
	uploadRoster: 'roster',
	listDeliveries: 'deliveries',
	retryDelivery: 'deliveries/dlv_abcdefgh/retry'
};

function refusal(method: string, rest: string, search = new URLSearchParams()): { code: string; status: number; message: string } {
	try {
		allowRequest(method, rest, search);
	} catch (error) {
		if (!(error instanceof ContractError)) throw error;
		return { code: error.code, status: error.status ?? 0, message: error.message };
	}
	throw new Error(`${method} ${rest} was allowed`);
}

describe('the signing proxy allowlist (docs/inbox-api.md §6)', () => {
	it('forwards an agent’s conversation work, never invitations, rewraps, rosters, agent wraps or deliveries, which the server makes itself', () => {
		for (const name of Object.keys(V1_ROUTES) as V1RouteName[]) {
			const { method } = V1_ROUTES[name];
			const rest = SAMPLE_PATHS[name];
			if (FORWARDED.includes(name)) expect(allowRequest(method, rest, new URLSearchParams()).route, name).toBe(name);
			else
				expect(refusal(method, rest), name).toEqual({
					code: 'ROUTE_NOT_ALLOWED',
					status: 403,
					message: `${method} /v1/${rest} is not forwarded by the proxy`
				});
		}
	});

	it('refuses a method the route does not have and a path of no route', () => {
		expect(refusal('DELETE', 'conversations/conv_abcdefgh').code).toBe('ROUTE_NOT_ALLOWED');
		expect(refusal('POST', 'conversations').code).toBe('ROUTE_NOT_ALLOWED');
		expect(refusal('GET', 'nowhere').code).toBe('ROUTE_NOT_ALLOWED');
	});

	it('returns the route, its ids and the path as it will be signed', () => {
		const allowed = allowRequest('GET', 'conversations/conv_abcdefgh/attachments/att_12345678', new URLSearchParams());
		expect(allowed).toMatchObject({
			route: 'getAttachmentDownload',
			params: ['conv_abcdefgh', 'att_12345678'],
			pathAndQuery: '/v1/conversations/conv_abcdefgh/attachments/att_12345678'
		});
		expect(allowed.definition).toBe(V1_ROUTES.getAttachmentDownload);
	});

	it('refuses every way of stepping out of /v1 with 400 INVALID_PATH', () => {
		const tricks = [
			'conversations//messages',
			'conversations/./x',
			'conversations/../roster',
			'./conversations',
			'../v2/conversations',
			'conversations/',
			'',
			'conversations%2F..',
			'conversations\\x',
			'http:/x',
			'user@host/conversations',
			'conversations/conv abcdefgh',
			'conversations/conv\u00e9',
			'conversations/\u007f',
			'conversations/\t',
			'c'.repeat(1025)
		];
		for (const rest of tricks) {
			expect(refusal('GET', rest), JSON.stringify(rest)).toEqual({
				code: 'INVALID_PATH',
				status: 400,
				message: 'the path must be plain segments of a /v1 route (no dots, empty or encoded segments, or URLs)'
			});
		}
		// 1,024 characters is still a path (of no route); every printable ASCII character but the four is allowed
		expect(refusal('GET', 'c'.repeat(1024)).code).toBe('ROUTE_NOT_ALLOWED');
		expect(refusal('GET', '!~_-.x').code).toBe('ROUTE_NOT_ALLOWED');
	});

	it('keeps the route’s own query parameters once each, re-encoded canonically', () => {
		const allowed = allowRequest('GET', 'conversations', new URLSearchParams('status=active&limit=5&cursor=a b+c%2Fd'));
		expect(allowed.pathAndQuery).toBe('/v1/conversations?status=active&limit=5&cursor=a+b+c%2Fd');
		expect(allowRequest('GET', 'conversations', new URLSearchParams('')).pathAndQuery).toBe('/v1/conversations');
		const longest = 'x'.repeat(512);
		expect(allowRequest('GET', 'conversations', new URLSearchParams({ cursor: longest })).pathAndQuery).toBe(
			`/v1/conversations?cursor=${longest}`
		);
		expect(allowRequest('GET', 'conversations', new URLSearchParams({ cursor: ' ~' })).pathAndQuery).toBe('/v1/conversations?cursor=+%7E');
	});

	it('refuses unknown, repeated and unusable query values with 400 INVALID_REQUEST naming the parameter', () => {
		const cases: [string, string][] = [
			['before=msg_1', 'before is not a query parameter of /v1/conversations'],
			['limit=1&limit=2', 'limit appears more than once'],
			[`cursor=${'x'.repeat(513)}`, 'cursor has an unusable value'],
			['cursor=a%0Ab', 'cursor has an unusable value'],
			['cursor=a%1Fb', 'cursor has an unusable value'],
			['cursor=a%7Fb', 'cursor has an unusable value']
		];
		for (const [search, message] of cases) {
			expect(refusal('GET', 'conversations', new URLSearchParams(search)), search).toEqual({
				code: 'INVALID_REQUEST',
				status: 400,
				message
			});
		}
	});
});

import { beforeAll, describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import { b64uEncode, generateEd25519KeyPair, initCrypto, type Ed25519KeyPair } from '../../crypto/index';
import { SESSION_COOKIE, type Session } from '../auth/sessions';
import { createAccount, registerAgentKey, type Account } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import type { Database } from '../db/database';
import { storeRoster } from '../db/rosters';
import type { Inbox } from '../inbox';
import { passGate, PUBLIC_BODY_LIMIT, type GateEvent } from './gate';

const ORIGIN = 'https://inbox.test';
const now = new Date('2026-11-24T10:00:00Z');

describe('the gate in process (docs/inbox-api.md §1; docs/threat-model.md)', () => {
	const databases = useDatabases('PGlite');
	let db: Database;
	let inbox: Inbox;
	let signing: Ed25519KeyPair;
	const sessions = new Map<string, Session>();

	const signIn = (token: string, account: Account) =>
		sessions.set(token, { account, expiresAt: new Date(now.getTime() + 3600_000), tokenHash: `hash-${token}` });

	beforeAll(async () => {
		await initCrypto();
		signing = generateEd25519KeyPair();
		db = await databases.open();
		inbox = {
			db,
			log: quietLogger,
			now: () => now.getTime(),
			config: { origin: ORIGIN },
			companyKeys: async () => ({ signingPublicKey: signing.publicKey }),
			session: async (token: string | undefined) => (token === undefined ? undefined : sessions.get(token))
		} as unknown as Inbox;
		const account = (username: string, role: 'agent' | 'admin') =>
			createAccount(db, { username, displayName: username, role, passwordHash: 'h' }, now);
		signIn('admin', await account('grace', 'admin'));
		signIn('keyless', await account('eve', 'agent'));
		const ada = await account('ada', 'agent');
		signIn(
			'agent',
			await registerAgentKey(db, { accountId: ada.accountId, agentKeyId: 'agk_ada00000', publicKey: 'PK_ADA', replace: false }, now)
		);
		await storeRoster(db, {
			rosterVersion: 1,
			issuedAt: '2026-11-24T10:00:00Z',
			agents: [{ agentKeyId: 'agk_ada00000', publicKey: 'PK_ADA' }],
			signature: 'S',
			uploadedBy: null,
			uploadedAt: now
		});
		await ensureConversation(db, 'conv_1', 'active', now);
	}, 60_000);

	/** A request to `path` on the route `routeId`, from the inbox's own origin unless told, signed in as `token`. */
	function gateEvent(
		method: string,
		path: string,
		routeId: string | null,
		options: { token?: string; body?: string; origin?: string | null; params?: Record<string, string> } = {}
	): GateEvent {
		const url = new URL(path, ORIGIN);
		const headers = new Headers();
		const origin = options.origin === undefined ? ORIGIN : options.origin;
		if (origin !== null) headers.set('origin', origin);
		return {
			request: new Request(url, { method, headers, body: options.body }),
			url,
			route: { id: routeId },
			params: options.params ?? {},
			cookies: { get: (name) => (name === SESSION_COOKIE ? options.token : undefined) }
		};
	}

	const pass = (...args: Parameters<typeof gateEvent>) => passGate(inbox, gateEvent(...args));

	it('takes a change only from its own origin, and a read from anywhere', async () => {
		await expect(pass('POST', '/api/session', '/api/session', { origin: 'https://evil.test', body: '{}' })).rejects.toMatchObject({
			code: 'ORIGIN_REJECTED',
			message: `requests that change something must come from ${ORIGIN}`
		});
		await expect(pass('DELETE', '/api/session', '/api/session', { origin: null })).rejects.toMatchObject({ code: 'ORIGIN_REJECTED' });
		for (const method of ['GET', 'HEAD'])
			await expect(pass(method, '/api/health', '/api/health', { origin: 'https://evil.test' })).resolves.toMatchObject({
				access: 'anonymous'
			});
	});

	it('refuses the signing secret in the request line and in the body', async () => {
		const secret = b64uEncode(signing.secretKey);
		await expect(pass('GET', `/api/health?k=${secret}`, '/api/health')).rejects.toMatchObject({ code: 'SECRET_REFUSED' });
		await expect(pass('POST', '/api/session', '/api/session', { body: JSON.stringify({ password: secret }) })).rejects.toMatchObject({
			code: 'SECRET_REFUSED'
		});
		await expect(pass('POST', '/api/session', '/api/session', { body: JSON.stringify({ password: 'hunter2' }) })).resolves.toBeDefined();
	});

	it('answers 404 where no route is and 405 for a method its route does not have', async () => {
		await expect(pass('GET', '/nowhere', null)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'nothing at /nowhere' });
		await expect(pass('GET', '/api/join', '/api/join')).rejects.toMatchObject({
			code: 'METHOD_NOT_ALLOWED',
			message: 'GET is not allowed on /api/join'
		});
	});

	it('reads at most PUBLIC_BODY_LIMIT bytes without a session, and more with one', async () => {
		const large = JSON.stringify({ text: 'x'.repeat(PUBLIC_BODY_LIMIT) });
		await expect(pass('POST', '/api/session', '/api/session', { body: large })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
		await expect(pass('POST', '/api/session', '/api/session', { body: large, token: 'keyless' })).resolves.toBeDefined();
	});

	it('asks of the caller what the access table asks of the route', async () => {
		await expect(pass('GET', '/api/health', '/api/health')).resolves.toEqual({
			session: undefined,
			access: 'anonymous',
			conversationId: undefined,
			proxied: undefined
		});
		await expect(pass('GET', '/api/company', '/api/company')).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'log in first' });
		await expect(pass('GET', '/api/company', '/api/company', { token: 'keyless' })).resolves.toMatchObject({
			session: sessions.get('keyless'),
			access: 'session'
		});
		await expect(pass('GET', '/api/admin/audit', '/api/admin/audit', { token: 'agent' })).rejects.toMatchObject({
			code: 'FORBIDDEN',
			message: 'this needs an admin account'
		});
		await expect(pass('GET', '/api/admin/audit', '/api/admin/audit', { token: 'admin' })).resolves.toMatchObject({ access: 'admin' });
		// fetch leaves a PATCH as it is written: the gate reads the method in capitals
		await expect(pass('patch', '/api/admin/settings', '/api/admin/settings', { token: 'admin', body: '{}' })).resolves.toMatchObject({
			access: 'admin'
		});
		await expect(pass('GET', '/api/labels', '/api/labels', { token: 'keyless' })).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
		await expect(pass('GET', '/api/labels', '/api/labels', { token: 'agent' })).resolves.toMatchObject({ access: 'rosterAgent' });
	});

	it("checks access to the route's conversation, which must exist", async () => {
		const messages = (conversationId: string, token: string) =>
			pass('GET', `/api/conversations/${conversationId}/messages`, '/api/conversations/[conversationId]/messages', {
				token,
				params: { conversationId }
			});
		await expect(messages('conv_1', 'admin')).resolves.toMatchObject({ access: 'conversationAgent', conversationId: 'conv_1' });
		await expect(messages('conv_1', 'keyless')).rejects.toMatchObject({ code: 'NO_CONVERSATION_ACCESS' });
		await expect(messages('conv_2', 'admin')).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no conversation conv_2' });
		await expect(messages('a.b', 'admin')).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no conversation "a.b"' });
		await expect(messages('x'.repeat(200), 'admin')).rejects.toMatchObject({
			message: `no conversation ${JSON.stringify('x'.repeat(140))}`
		});
	});

	describe('the signing proxy', () => {
		const proxied = (method: string, rest: string, options: { token?: string; body?: string } = {}) =>
			pass(method, `/api/v1/${rest}`, '/api/v1/[...rest]', options);

		it('forwards nothing without a session, and only the /v1 routes it allows', async () => {
			await expect(proxied('GET', 'conversations')).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'log in first' });
			await expect(proxied('POST', 'invites', { token: 'admin', body: '{}' })).rejects.toMatchObject({ code: 'ROUTE_NOT_ALLOWED' });
			await expect(pass('GET', '/api/v2/conversations', '/api/v1/[...rest]', { token: 'admin' })).rejects.toMatchObject({
				code: 'INVALID_PATH'
			});
		});

		it("asks the /v1 route's level, with the conversation of its path or of its body", async () => {
			await expect(proxied('GET', 'conversations?limit=5', { token: 'keyless' })).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
			const list = await proxied('GET', 'conversations?limit=5', { token: 'agent' });
			expect(list).toMatchObject({ access: 'rosterAgent', conversationId: undefined });
			expect(list.proxied).toMatchObject({ route: 'listConversations', pathAndQuery: '/v1/conversations?limit=5' });
			await expect(proxied('GET', 'conversations/conv_1/messages', { token: 'admin' })).resolves.toMatchObject({
				access: 'conversationAgent',
				conversationId: 'conv_1'
			});
			await expect(
				proxied('POST', 'messages', { token: 'admin', body: JSON.stringify({ conversationId: 'conv_1' }) })
			).resolves.toMatchObject({
				conversationId: 'conv_1'
			});
			for (const body of [undefined, '', '{}', JSON.stringify({ conversationId: 'a.b' })])
				await expect(proxied('POST', 'messages', { token: 'admin', body })).rejects.toMatchObject({
					code: 'INVALID_REQUEST',
					message: 'conversationId must name the conversation'
				});
		});

		it('tells a caller without a session nothing but "log in first": not which routes it forwards, nor what its body lacks', async () => {
			for (const [method, rest, body] of [
				['POST', 'invites', '{}'],
				['GET', 'nowhere', undefined],
				['POST', 'messages', '{}'],
				['GET', 'conversations/a.b/messages', undefined]
			] as const)
				await expect(proxied(method, rest, { body }), `${method} ${rest}`).rejects.toMatchObject({
					code: 'UNAUTHENTICATED',
					message: 'log in first'
				});
		});
	});
});

import { describe, expect, it, vi } from 'vitest';
import { addToRoster, newAgent, signedRoster, signingKeyOf, type TestAgent } from '$test-support/admin-api';
import { Customer } from '$test-support/customer';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { openDatabase } from '../db/database';
import { V1_ROUTES, type V1RouteName } from '../../wire/v1';
import { PROXIED, PROXY_ACCESS, ROUTE_ACCESS, type Access, type HttpMethod } from '../api/access-policy';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 240_000 });

/** The kinds of caller of docs/threat-model.md, "An account outside the roster", and those with a place in the team. */
const CALLERS = ['anonymous', 'noKey', 'newHire', 'removed', 'withAccess', 'admin'] as const;
type Caller = (typeof CALLERS)[number];

/** What the gate answers `caller` on a route of `level`, or null when it lets the call through. */
function gateRefusal(level: Access, caller: Caller): { status: number; code: string } | null {
	if (level === 'anonymous') return null;
	if (caller === 'anonymous') return { status: 401, code: 'UNAUTHENTICATED' };
	if (level === 'session' || caller === 'admin') return null;
	if (level === 'admin') return { status: 403, code: 'FORBIDDEN' };
	if (caller === 'withAccess') return null;
	return level === 'rosterAgent' ? { status: 403, code: 'NOT_IN_ROSTER' } : { status: 403, code: 'NO_CONVERSATION_ACCESS' };
}

/** The gate's refusals: an allowed call never gets one (a route may still refuse on its own terms, e.g. a webhook's signature). */
function isGateRefusal(answer: { status: number; code: string | null }): boolean {
	if (answer.status === 401) return answer.code === 'UNAUTHENTICATED';
	return answer.status === 403 && ['FORBIDDEN', 'NOT_IN_ROSTER', 'NO_CONVERSATION_ACCESS', 'ROUTE_NOT_ALLOWED'].includes(answer.code ?? '');
}

interface Call {
	method: string;
	path: string;
	level: Access;
	body?: unknown;
	/** Made after every other call: 1 rotates a secret, 2 ends the caller's session. */
	order?: number;
}

/** A path (after `/v1/`) and a body for every `/v1` route the proxy forwards. */
function proxiedCall(name: V1RouteName, conversationId: string): { path: string; body?: unknown } {
	const paths: Partial<Record<V1RouteName, string>> = {
		listConversations: 'conversations',
		getConversation: `conversations/${conversationId}`,
		listMessages: `conversations/${conversationId}/messages`,
		sendMessage: 'messages',
		markRead: `conversations/${conversationId}/read`,
		typing: `conversations/${conversationId}/typing`,
		close: `conversations/${conversationId}/close`,
		createAttachmentUpload: `conversations/${conversationId}/attachments`,
		getAttachmentDownload: `conversations/${conversationId}/attachments/att_nothing00`
	};
	const bodies: Partial<Record<V1RouteName, unknown>> = {
		sendMessage: { conversationId, contentType: 'text', encryption: {} },
		markRead: { upToMessageId: 'msg_nothing00' },
		createAttachmentUpload: { size: 100 }
	};
	const path = paths[name];
	if (!path) throw new Error(`no sample path for ${name}: add one`);
	return { path: `/api/v1/${path}`, body: V1_ROUTES[name].method === 'GET' ? undefined : (bodies[name] ?? {}) };
}

/** Every route of the access table and every `/v1` route the proxy forwards, each method, as one call. */
function everyCall(conversationId: string): Call[] {
	const params: Record<string, string> = {
		conversationId,
		inviteId: 'inv_nothing00',
		accountId: 'acc_nothing000000000',
		invitationId: 'ain_nothing00',
		deliveryId: 'dlv_nothing00',
		jobId: 'gjb_nothing00',
		labelId: 'lbl_nothing00',
		teamId: 'team_nothing00',
		replyId: 'cr_nothing000',
		script: 'nothing.mjs'
	};
	const calls: Call[] = [];
	for (const [routeId, entry] of Object.entries(ROUTE_ACCESS)) {
		if (entry === PROXIED) {
			for (const [name, rule] of Object.entries(PROXY_ACCESS) as [V1RouteName, (typeof PROXY_ACCESS)[V1RouteName]][]) {
				if (rule) calls.push({ method: V1_ROUTES[name].method, level: rule.access, ...proxiedCall(name, conversationId) });
			}
			continue;
		}
		const path = routeId.replace('[...unknown]', 'no/such/route').replace(/\[(\w+)\]/g, (_, name: string) => {
			if (!params[name]) throw new Error(`no sample for the parameter ${name}: add one`);
			return params[name];
		});
		const methods = 'anyMethod' in entry ? { GET: entry.anyMethod, DELETE: entry.anyMethod } : entry;
		for (const [method, level] of Object.entries(methods) as [HttpMethod, Access][]) {
			const order =
				routeId === '/api/session' && method === 'DELETE'
					? 2
					: routeId === '/api/admin/webhook-secret/rotation' || routeId === '/api/admin/company-key/rotation'
						? 1
						: 0;
			calls.push({ method, path, level, body: method === 'GET' ? undefined : {}, order });
		}
	}
	return calls;
}

/** One request with the caller's cookie and the inbox's Origin; a live stream is closed as soon as it answers. */
async function send(client: InboxClient, call: Call): Promise<{ status: number; code: string | null }> {
	const controller = new AbortController();
	const headers: Record<string, string> = { origin: client.url };
	if (client.cookie) headers.cookie = client.cookie;
	if (call.body !== undefined) headers['content-type'] = 'application/json';
	const response = await fetch(client.url + call.path, {
		method: call.method,
		headers,
		body: call.body === undefined ? undefined : JSON.stringify(call.body),
		signal: controller.signal,
		redirect: 'manual'
	});
	if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
		controller.abort();
		return { status: response.status, code: null };
	}
	const text = await response.text();
	let code: string | null = null;
	try {
		code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
	} catch {
		// not JSON: no code
	}
	return { status: response.status, code };
}

describe('who may call what, route by route (docs/inbox-api.md §1 "Access"; docs/threat-model.md)', () => {
	const harness = useStack('PostgreSQL');

	/** Every row the inbox keeps that a request could change (sessions and the accounts' last activity move by themselves). */
	async function snapshot(): Promise<string> {
		const db = await openDatabase({ databaseUrl: harness.stack().databaseUrl, dataDir: '' });
		try {
			const tables = await db.query<{ table_name: string }>(
				`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'
				   and table_name not in ('sessions', 'login_attempts', 'schema_migrations') order by table_name`
			);
			const parts: string[] = [];
			for (const { table_name } of tables) {
				const rows = await db.query<{ row: string }>(
					table_name === 'accounts'
						? `select (t.account_id, t.username, t.role, t.agent_key_id, t.disabled_at, t.role_since)::text as row from accounts t order by 1`
						: `select t::text as row from "${table_name}" t order by 1`
				);
				parts.push(`${table_name}:`, ...rows.map((row) => row.row));
			}
			return parts.join('\n');
		} finally {
			await db.close();
		}
	}

	/** An account of each kind, and a conversation sealed for the agent with access and for the one since removed. */
	async function team(): Promise<{
		callers: Record<Caller, InboxClient>;
		conversationId: string;
		admin: InboxClient;
		withAccess: TestAgent;
	}> {
		const stack = harness.stack();
		const admin = await harness.login(ADMIN);
		const signingKey = await signingKeyOf(stack);
		const withAccess = await newAgent(admin, 'access');
		const removed = await newAgent(admin, 'removed');
		const newHire = await newAgent(admin, 'hire');
		const noKeyName = `nokey-${process.pid}-${Date.now()}`;
		await admin.post('/api/admin/accounts', { username: noKeyName, displayName: 'No Key', role: 'agent', password: 'no key password 1' });
		const noKey = await InboxClient.loggedIn(stack.inbox.url, noKeyName, 'no key password 1');
		const upload = async (agents: TestAgent[]) => {
			const { next } = (await admin.get('/api/admin/roster')).body;
			const roster = signedRoster(
				stack.company.companyId,
				next.rosterVersion,
				agents.map((agent) => agent.rosterEntry),
				signingKey
			);
			expect((await admin.post('/api/admin/roster', roster)).status).toBe(201);
		};
		await upload([withAccess, removed]);
		const invited = await admin.post('/api/invites', {});
		const customer = await Customer.redeem(stack.simUrl, { link: invited.body.link });
		const { conversationId } = customer;
		await expect
			.poll(async () => (await removed.client.get(`/api/conversations/${conversationId}`)).body.readable, { timeout: 30_000 })
			.toBe(true);
		await customer.say('A message the outsiders must not read.');
		await expect
			.poll(async () => (await admin.get(`/api/conversations/${conversationId}/messages`)).body.data?.length, { timeout: 30_000 })
			.toBe(1);
		await upload([withAccess]);
		return {
			callers: {
				anonymous: new InboxClient(stack.inbox.url),
				noKey,
				newHire: newHire.client,
				removed: removed.client,
				withAccess: withAccess.client,
				admin
			},
			conversationId,
			admin,
			withAccess
		};
	}

	it('calls every route and every forwarded /v1 route as each kind of caller: the answer is what the table says, and a refusal changes nothing', async () => {
		const { callers, conversationId, admin } = await team();
		const calls = everyCall(conversationId);
		expect(calls.length).toBeGreaterThan(70);
		const atService = async () =>
			JSON.stringify([
				(await admin.get(`/api/v1/conversations/${conversationId}`)).body,
				(await admin.get(`/api/v1/conversations/${conversationId}/messages`)).body
			]);

		// every refusal first: the inbox's database and the service must be as before
		const before = await snapshot();
		const serviceBefore = await atService();
		let refused = 0;
		for (const caller of CALLERS) {
			for (const call of calls) {
				const expected = gateRefusal(call.level, caller);
				if (!expected) continue;
				expect(await send(callers[caller], call), `${caller} ${call.method} ${call.path}`).toEqual(expected);
				refused++;
			}
		}
		expect(refused).toBeGreaterThan(200);
		expect(await snapshot()).toBe(before);
		expect(await atService()).toBe(serviceBefore);

		// then what each may do: never a refusal of the gate (the handler may still find the body or the id wrong)
		const allowed = CALLERS.flatMap((caller) => calls.filter((call) => !gateRefusal(call.level, caller)).map((call) => ({ caller, call })));
		allowed.sort((a, b) => (a.call.order ?? 0) - (b.call.order ?? 0));
		for (const { caller, call } of allowed) {
			const answer = await send(callers[caller], call);
			const what = `${caller} ${call.method} ${call.path} → ${answer.status} ${answer.code}`;
			expect(isGateRefusal(answer), what).toBe(false);
		}
	});

	it('an account without access sees that a conversation exists, and nothing of its profile, notes, activity, messages, authors or presence', async () => {
		const { callers, conversationId, admin } = await team();
		const outsiders = [callers.noKey, callers.newHire, callers.removed];
		const streams = await Promise.all(outsiders.map((client) => client.events()));
		const insider = await callers.withAccess.events();
		await Promise.all([...streams, insider].map((stream) => stream.waitFor((event) => event.event === 'ready')));

		await callers.withAccess.post(`/api/conversations/${conversationId}/presence`, { state: 'viewing' });
		const adminId = (await admin.get('/api/session')).body.account.accountId;
		expect((await admin.put(`/api/conversations/${conversationId}/assignee`, { accountId: adminId })).status).toBe(200);
		const seenByInsider = await insider.waitFor((event) => event.event === 'presence' && event.data.conversationId === conversationId);
		expect(seenByInsider.data.state).toBe('viewing');
		await insider.waitFor((event) => event.event === 'conversation.changed' && event.data.conversation.conversationId === conversationId);

		for (const [index, stream] of streams.entries()) {
			// the change reaches everyone, as a view without what only readers see
			const changed = await stream.waitFor(
				(event) => event.event === 'conversation.changed' && event.data.conversation.conversationId === conversationId
			);
			expect(changed.data.conversation, `outsider ${index}`).toMatchObject({
				readable: false,
				agentWraps: [],
				profile: null,
				activity: [],
				keyEvents: [],
				labels: [],
				unreadCount: 0
			});
			// the presence came before the change: an outsider's stream skipped it
			expect(stream.received.some((event) => event.event === 'presence')).toBe(false);
			const list = (await outsiders[index].get('/api/conversations')).body.data;
			expect(list.find((item: { conversationId: string }) => item.conversationId === conversationId)).toMatchObject({ readable: false });
			for (const path of ['messages', 'notes']) {
				expect((await outsiders[index].get(`/api/conversations/${conversationId}/${path}`)).body.error.code).toBe('NO_CONVERSATION_ACCESS');
			}
			const authors = await outsiders[index].post('/api/message-authors', {
				messages: [{ conversationId, clientMessageId: 'srv_anything0' }]
			});
			expect(authors.body.error.code).toBe('NOT_IN_ROSTER');
		}
		for (const stream of [...streams, insider]) stream.close();

		expect((await admin.post('/api/conversations/conv_nothing00/presence', { state: 'viewing' })).status).toBe(404);
		expect((await callers.withAccess.post('/api/conversations/conv_nothing00/presence', { state: 'viewing' })).status).toBe(404);
		expect((await callers.withAccess.get(`/api/conversations/${conversationId}`)).body).toMatchObject({ readable: true });
	});

	it('invitations: listed to agents of the roster and admins; a link shown again and revoked only by who made it or an admin; every step audited', async () => {
		const stack = harness.stack();
		const { callers, admin, withAccess } = await team();
		const colleague = await newAgent(admin, 'colleague');
		await addToRoster(stack, admin, [colleague.rosterEntry]);
		const mine = (await withAccess.client.post('/api/invites', {})).body;
		const admins = (await admin.post('/api/invites', {})).body;

		for (const outsider of [callers.noKey, callers.newHire, callers.removed]) {
			expect((await outsider.get('/api/invites')).body.error.code).toBe('NOT_IN_ROSTER');
			expect((await outsider.get(`/api/invites/${mine.inviteId}`)).body.error.code).toBe('NOT_IN_ROSTER');
			expect((await outsider.request('DELETE', `/api/invites/${mine.inviteId}`)).body.error.code).toBe('NOT_IN_ROSTER');
		}
		const listed = async (client: InboxClient) =>
			Object.fromEntries(
				((await client.get('/api/invites')).body.data as { inviteId: string; mayManage: boolean }[]).map((item) => [
					item.inviteId,
					item.mayManage
				])
			);
		expect(await listed(colleague.client)).toMatchObject({ [mine.inviteId]: false, [admins.inviteId]: false });
		expect(await listed(withAccess.client)).toMatchObject({ [mine.inviteId]: true, [admins.inviteId]: false });
		expect(await listed(admin)).toMatchObject({ [mine.inviteId]: true, [admins.inviteId]: true });

		// a colleague neither sees the secret nor revokes it
		const shown = await colleague.client.get(`/api/invites/${mine.inviteId}`);
		expect([shown.status, shown.body.error.code, JSON.stringify(shown.body)]).toEqual([
			403,
			'FORBIDDEN',
			expect.not.stringContaining('#s=')
		]);
		expect((await colleague.client.request('DELETE', `/api/invites/${mine.inviteId}`)).body.error.code).toBe('FORBIDDEN');
		expect((await withAccess.client.get(`/api/invites/${admins.inviteId}`)).body.error.code).toBe('FORBIDDEN');
		// who made it, and an admin, do
		expect((await withAccess.client.get(`/api/invites/${mine.inviteId}`)).body.link).toBe(mine.link);
		expect((await admin.get(`/api/invites/${mine.inviteId}`)).body.link).toBe(mine.link);
		expect((await withAccess.client.request('DELETE', `/api/invites/${mine.inviteId}`)).status).toBe(204);

		const audit = async (action: string) =>
			((await admin.get(`/api/admin/audit?action=${action}`)).body.data as { actorName: string; target: string }[])
				.filter((entry) => entry.target === mine.inviteId || entry.target === admins.inviteId)
				.map((entry) => [entry.actorName, entry.target]);
		expect(await audit('invitation.created')).toEqual([
			[ADMIN.displayName, admins.inviteId],
			[withAccess.displayName, mine.inviteId]
		]);
		expect(await audit('invitation.link_shown')).toEqual([
			[ADMIN.displayName, mine.inviteId],
			[withAccess.displayName, mine.inviteId]
		]);
		expect(await audit('invitation.revoked')).toEqual([[withAccess.displayName, mine.inviteId]]);
	});
});

describe('what one account may spend of what the team shares (docs/inbox-api.md §1 "Caps")', () => {
	const harness = useStack('PGlite', {
		inboxEnv: { CAP_UPLOADS_PER_HOUR: '3', CAP_STREAMS_PER_SESSION: '2', CAP_STREAMS_PER_ACCOUNT: '3' }
	});

	it('upload slots per hour, and live streams per session and per account: 429 RATE_LIMITED with Retry-After, and the admin sees who used how much', async () => {
		const stack = harness.stack();
		const agent = await harness.loginInRoster();
		const admin = await harness.login(ADMIN);
		const invited = await agent.post('/api/invites', {});
		const { conversationId } = await Customer.redeem(stack.simUrl, { link: invited.body.link });
		await expect.poll(async () => (await agent.get(`/api/conversations/${conversationId}`)).body.readable, { timeout: 30_000 }).toBe(true);

		const upload = () => agent.post(`/api/v1/conversations/${conversationId}/attachments`, { size: 1000 });
		for (let i = 0; i < 3; i++) expect((await upload()).status).toBe(201);
		const refused = await upload();
		expect([refused.status, refused.body.error.code]).toEqual([429, 'RATE_LIMITED']);
		expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
		expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);

		const first = await agent.events();
		const second = await agent.events();
		const third = await agent.events();
		expect([first.response.status, second.response.status, third.response.status]).toEqual([200, 200, 429]);
		expect(third.response.headers.get('retry-after')).toBe('45');
		// another session of the account: one more stream, up to the account's cap
		const elsewhere = await harness.loginInRoster();
		const fourth = await elsewhere.events();
		const fifth = await elsewhere.events();
		expect([fourth.response.status, fifth.response.status]).toEqual([200, 429]);
		expect((await fifth.response.json()).error.code).toBe('RATE_LIMITED');

		const usage = (await admin.get('/api/admin/usage')).body;
		expect(usage.caps).toEqual({ uploadsPerHour: 3, writesPerMinute: 240, streamsPerSession: 2, streamsPerAccount: 3 });
		const accountId = (await agent.get('/api/session')).body.account.accountId;
		expect(usage.data.find((row: { accountId: string }) => row.accountId === accountId)).toMatchObject({
			uploadsThisHour: 3,
			openStreams: 3
		});
		expect((await agent.get('/api/admin/usage')).body.error.code).toBe('FORBIDDEN');

		// a stream that closes gives its place back
		first.close();
		await expect
			.poll(
				async () =>
					(await admin.get('/api/admin/usage')).body.data.find((row: { accountId: string }) => row.accountId === accountId).openStreams
			)
			.toBe(2);
		const again = await elsewhere.events();
		expect(again.response.status).toBe(200);
		for (const stream of [second, fourth, again]) stream.close();
	});
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Customer, simControl, withForeignSecret } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, AGENT, useStack } from '$test-support/integration';
import { b64uEncode, fingerprintB64u, parseKeyFile, signRotation } from '../../crypto/index';
import { rotateCompanyKeys } from '../keys/files';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const conversationOf = (client: InboxClient, id: string) => client.get(`/api/conversations/${id}`);

const SECOND_ADMIN = { username: 'alan', displayName: 'Alan Admin', password: 'alan password 123' };

/** Runs `work` with the team's re-invitation policy set to `policy`, then sets the default back. */
async function withPolicy(admin: InboxClient, policy: 'automatic' | 'second_person', work: () => Promise<void>): Promise<void> {
	expect((await admin.patch('/api/admin/settings', { reinviteRewrap: policy })).body).toMatchObject({ reinviteRewrap: policy });
	try {
		await work();
	} finally {
		await admin.patch('/api/admin/settings', { reinviteRewrap: 'second_person' });
	}
}

describe.each(BACKENDS)('conversations, sessions and accounts end to end on %s (contract 6.3, 6.4; docs/inbox-api.md)', (backend) => {
	const harness = useStack(backend);

	it('an invitation link starts a verified conversation; the message arrives live and is stored as received', async () => {
		const agent = await harness.loginInRoster();
		const events = await agent.events();
		await events.waitFor((event) => event.event === 'ready');
		const invited = await agent.post('/api/invites', {});
		expect(invited.status).toBe(201);
		expect(invited.body.link).toMatch(/#s=[A-Za-z0-9_-]{43}&fp=[A-Za-z0-9_-]{43}$/);
		expect((await conversationOf(agent, invited.body.conversationId)).body).toMatchObject({ status: 'pending', trust: null });

		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const started = await events.waitFor(
			(event) => event.event === 'conversation.started' && event.data.conversation.conversationId === customer.conversationId
		);
		expect(started.data.conversation).toMatchObject({ status: 'active', trust: 'verified', rewrap: { state: 'none' } });

		const sent = await customer.say('Hello, my parcel is late');
		const created = await events.waitFor((event) => event.event === 'message.created' && event.data.message.messageId === sent.messageId);
		expect(created.data.message).toMatchObject({
			conversationId: customer.conversationId,
			seq: 1,
			senderType: 'user',
			contentType: 'text'
		});
		expect(created.data.message.encryption).toMatchObject({ v: 1, scheme: 'sc1', keyVersion: 1 });
		const stored = await agent.get(`/api/conversations/${customer.conversationId}/messages`);
		expect(stored.body.data).toEqual([created.data.message]);
		expect((await conversationOf(agent, customer.conversationId)).body.unreadCount).toBe(1);
		events.close();
	});

	it('a typed short code starts an unverified conversation; a link with another secret is binding_invalid', async () => {
		const agent = await harness.loginInRoster();
		const byCode = await agent.post('/api/invites', {});
		const typed = await Customer.redeem(harness.stack().simUrl, { shortCode: byCode.body.shortCode });
		await expect.poll(async () => (await conversationOf(agent, typed.conversationId)).body.trust, { timeout: 20_000 }).toBe('unverified');

		const tampered = await agent.post('/api/invites', {});
		const substituted = await Customer.redeem(harness.stack().simUrl, { link: withForeignSecret(tampered.body.link) });
		await expect
			.poll(async () => (await conversationOf(agent, substituted.conversationId)).body.trust, { timeout: 20_000 })
			.toBe('binding_invalid');
	});

	it('only an admin or an agent with access re-invites; the new key waits for a second person, and every step shows', async () => {
		const admin = await harness.login(ADMIN);
		// Ada is signed in but holds no key of the roster: the account of the takeover.
		const outsider = await harness.loginOutsider();
		const invited = await admin.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await customer.say('before the new phone');

		// The takeover stops at the gate; the proxy forwards no re-invitation at all: there is one route.
		const refused = await outsider.post(`/api/conversations/${id}/reinvite`, {});
		expect([refused.status, refused.body.error.code]).toEqual([403, 'NO_CONVERSATION_ACCESS']);
		const proxied = await admin.post(`/api/v1/conversations/${id}/reinvite`, {});
		expect([proxied.status, proxied.body.error.code]).toEqual([403, 'ROUTE_NOT_ALLOWED']);
		await expect
			.poll(async () => (await conversationOf(admin, id)).body, { timeout: 20_000 })
			.toMatchObject({ status: 'active', trust: 'verified', keyEvents: [] });

		// A second admin, made before the re-invitation: someone who may approve it.
		const created = await admin.post('/api/admin/accounts', { ...SECOND_ADMIN, role: 'admin' });
		expect(created.status).toBe(201);
		const second = await InboxClient.loggedIn(harness.stack().inbox.url, SECOND_ADMIN.username, SECOND_ADMIN.password);

		// With access: recorded, redeemed on a second phone, held until someone else approves.
		const reinvited = await admin.post(`/api/conversations/${id}/reinvite`, {});
		expect(reinvited.status).toBe(201);
		await customer.changeDevice({ link: reinvited.body.link });
		await expect
			.poll(async () => (await conversationOf(admin, id)).body, { timeout: 30_000 })
			.toMatchObject({ status: 'awaiting_key', trust: 'verified', rewrap: { state: 'needs_confirmation' }, mayApproveRewrap: false });
		const held = (await conversationOf(admin, id)).body;
		expect(held.keyEvents.map((event: { kind: string; actorName: string | null }) => [event.kind, event.actorName])).toEqual([
			['reinvited', ADMIN.displayName],
			['key_changed', null]
		]);
		expect(held.keyEvents[1].details).toEqual({ fingerprint: expect.stringMatching(/^([0-9a-f]{4} ){15}[0-9a-f]{4}$/), trust: 'verified' });
		expect((await customer.messages())[0].error).toBe('CONVERSATION_AWAITING_KEY');

		const own = await admin.post(`/api/conversations/${id}/rewrap`, {});
		expect([own.status, own.body.error.code]).toEqual([403, 'SECOND_PERSON_REQUIRED']);
		const byOutsider = await outsider.post(`/api/conversations/${id}/rewrap`, {});
		expect([byOutsider.status, byOutsider.body.error.code]).toEqual([403, 'NO_CONVERSATION_ACCESS']);
		expect((await customer.view()).status).toBe('awaiting_key');

		// An admin made after the re-invitation was asked for is no second person (docs/threat-model.md, "A lone admin").
		const late = { username: `late-${backend}`, displayName: 'Late Admin', password: 'late admin password', role: 'admin' };
		expect((await admin.post('/api/admin/accounts', late)).status).toBe(201);
		const lateAdmin = await InboxClient.loggedIn(harness.stack().inbox.url, late.username, late.password);
		const tooLate = await lateAdmin.post(`/api/conversations/${id}/rewrap`, {});
		expect([tooLate.status, tooLate.body.error.code]).toEqual([403, 'SECOND_PERSON_REQUIRED']);
		expect(tooLate.body.error.message).toMatch(/became an admin after this re-invitation/);

		expect((await conversationOf(second, id)).body.mayApproveRewrap).toBe(true);
		const approved = await second.post(`/api/conversations/${id}/rewrap`, {});
		expect(approved.status).toBe(200);
		expect(approved.body).toMatchObject({ status: 'active', rewrap: { state: 'done' } });
		expect(approved.body.keyEvents.at(-1)).toMatchObject({
			kind: 'rewrap_approved',
			actorName: SECOND_ADMIN.displayName,
			// the thread names who made the approving admin, and since when they are one
			details: { approverRole: 'admin', roleSince: expect.stringMatching(/Z$/), roleGrantedBy: ADMIN.displayName }
		});
		const audit = (await admin.get('/api/admin/audit?action=account.created')).body.data;
		expect(audit.map((entry: { actorName: string; details: { username: string } }) => [entry.actorName, entry.details.username])).toEqual(
			expect.arrayContaining([
				[ADMIN.displayName, SECOND_ADMIN.username],
				[ADMIN.displayName, late.username]
			])
		);
		const read = await customer.messages();
		expect(read.map((message) => [message.text, message.error])).toEqual([['before the new phone', undefined]]);
	});

	it('with the automatic policy, a verified re-invitation is rewrapped by the server at once; only admins set the policy', async () => {
		const admin = await harness.login(ADMIN);
		const agent = await harness.login();
		expect((await agent.patch('/api/admin/settings', { reinviteRewrap: 'automatic' })).body.error.code).toBe('FORBIDDEN');
		expect((await admin.patch('/api/admin/settings', { reinviteRewrap: 'never' })).body.error.code).toBe('INVALID_REQUEST');
		expect((await admin.patch('/api/admin/settings', { other: true })).status).toBe(400);
		expect((await admin.get('/api/admin/settings')).body).toEqual({
			reinviteRewrap: 'second_person',
			assignOnFirstReply: false,
			roundRobin: false,
			roundRobinCap: 0,
			businessHours: null,
			serviceTargets: null,
			awayReply: null
		});
		await withPolicy(admin, 'automatic', async () => {
			const invited = await admin.post('/api/invites', {});
			const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
			await customer.say('before the new phone');
			const reinvited = await admin.post(`/api/conversations/${customer.conversationId}/reinvite`, {});
			await customer.changeDevice({ link: reinvited.body.link });
			await expect
				.poll(async () => (await conversationOf(admin, customer.conversationId)).body, { timeout: 30_000 })
				.toMatchObject({ status: 'active', trust: 'verified', rewrap: { state: 'done' } });
			const read = await customer.messages();
			expect(read.map((message) => [message.text, message.error])).toEqual([['before the new phone', undefined]]);
		});
	});

	it('an unverified re-invitation waits for someone with access to confirm, then is rewrapped', async () => {
		const agent = await harness.login(ADMIN);
		const invited = await agent.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		await customer.say('hello');
		// The automatic policy lets the one who re-invited confirm (the second-person policy is tested above).
		await agent.patch('/api/admin/settings', { reinviteRewrap: 'automatic' });
		onTestFinished(() => agent.patch('/api/admin/settings', { reinviteRewrap: 'second_person' }).then(() => undefined));
		const reinvited = await agent.post(`/api/conversations/${customer.conversationId}/reinvite`, {});
		await customer.changeDevice({ shortCode: reinvited.body.shortCode });
		await expect
			.poll(async () => (await conversationOf(agent, customer.conversationId)).body, { timeout: 20_000 })
			.toMatchObject({ status: 'awaiting_key', trust: 'unverified', rewrap: { state: 'needs_confirmation' } });
		expect((await customer.messages())[0].error).toBe('CONVERSATION_AWAITING_KEY');

		const confirmed = await agent.post(`/api/conversations/${customer.conversationId}/rewrap`, {});
		expect(confirmed.status).toBe(200);
		expect(confirmed.body).toMatchObject({ status: 'active', rewrap: { state: 'done' } });
		expect((await customer.messages()).map((message) => message.text)).toEqual(['hello']);
		const again = await agent.post(`/api/conversations/${customer.conversationId}/rewrap`, {});
		expect([again.status, again.body.error.code]).toEqual([409, 'CONVERSATION_NOT_AWAITING_KEY']);
	});

	it('a re-invitation whose binding fails is never rewrapped, not even on confirmation', async () => {
		const agent = await harness.login(ADMIN);
		const invited = await agent.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const reinvited = await agent.post(`/api/conversations/${customer.conversationId}/reinvite`, {});
		await customer.changeDevice({ link: withForeignSecret(reinvited.body.link) });
		await expect
			.poll(async () => (await conversationOf(agent, customer.conversationId)).body, { timeout: 20_000 })
			.toMatchObject({ status: 'awaiting_key', trust: 'binding_invalid', rewrap: { state: 'blocked' } });
		const refused = await agent.post(`/api/conversations/${customer.conversationId}/rewrap`, {});
		expect([refused.status, refused.body.error.code]).toEqual([409, 'BINDING_INVALID']);
		expect((await customer.view()).status).toBe('awaiting_key');
	});

	it('after a company key rotation, new links carry the new key and old conversations are rewrapped with the previous one', async () => {
		const agent = await harness.login(ADMIN);
		const invited = await agent.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		await customer.say('sealed for the first company key');
		await expect.poll(async () => (await conversationOf(agent, customer.conversationId)).body.trust, { timeout: 20_000 }).toBe('verified');

		// The admin's rotation (contract 6.6): new pair on disk, the statement signed with signing.key, entered in the portal.
		const keysDir = join(harness.stack().dataDir, 'keys');
		const rotation = await rotateCompanyKeys(keysDir);
		const signingKey = parseKeyFile(await readFile(join(keysDir, 'signing.key'), 'utf8'), 64, 'signing.key');
		const { companyId } = harness.stack().company;
		const rotated = await simControl(harness.stack().simUrl).control('POST', `/_sim/companies/${companyId}/keys/rotate`, {
			publicKey: b64uEncode(rotation.toPublicKey),
			keyVersion: rotation.toKeyVersion,
			rotationSignature: signRotation({ companyId, ...rotation }, signingKey)
		});
		expect(rotated.status).toBe(200);

		await agent.patch('/api/admin/settings', { reinviteRewrap: 'automatic' });
		onTestFinished(() => agent.patch('/api/admin/settings', { reinviteRewrap: 'second_person' }).then(() => undefined));
		const reinvited = await agent.post(`/api/conversations/${customer.conversationId}/reinvite`, {});
		expect(reinvited.body.link.endsWith(`&fp=${fingerprintB64u(rotation.toPublicKey)}`)).toBe(true);
		await customer.changeDevice({ link: reinvited.body.link });
		await expect
			.poll(async () => (await conversationOf(agent, customer.conversationId)).body, { timeout: 30_000 })
			.toMatchObject({ status: 'active', trust: 'verified', rewrap: { state: 'done' } });
		expect((await customer.messages()).map((message) => message.text)).toEqual(['sealed for the first company key']);

		const fresh = await agent.post('/api/invites', {});
		const newcomer = await Customer.redeem(harness.stack().simUrl, { link: fresh.body.link });
		await expect.poll(async () => (await conversationOf(agent, newcomer.conversationId)).body.trust, { timeout: 20_000 }).toBe('verified');
	});

	it('the live stream resumes after Last-Event-ID, and says resync for an id it cannot know', async () => {
		const agent = await harness.loginInRoster();
		const first = await agent.events();
		const ready = await first.waitFor((event) => event.event === 'ready');
		first.close();
		const invited = await agent.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		await customer.say('while away');
		await expect
			.poll(async () => (await agent.get(`/api/conversations/${customer.conversationId}/messages`)).body.data.length, { timeout: 20_000 })
			.toBe(1);

		const resumed = await agent.events({ lastEventId: ready.id });
		await resumed.waitFor((event) => event.event === 'ready');
		const names = resumed.received.filter(
			(event) =>
				event.data.conversation?.conversationId === customer.conversationId || event.data.conversationId === customer.conversationId
		);
		expect(names.map((event) => event.event)).toEqual(expect.arrayContaining(['conversation.started', 'message.created']));
		const ids = resumed.received.filter((event) => event.event !== 'ready').map((event) => Number(event.id));
		expect(ids).toEqual([...ids].sort((a, b) => a - b));
		expect(Math.min(...ids)).toBeGreaterThan(Number(ready.id));
		resumed.close();

		const unknown = await agent.events({ lastEventId: '999999999' });
		await unknown.waitFor((event) => event.event === 'resync');
		unknown.close();
	});

	it('the list names the live event it reflects; a stream resumed from it replays a change the list missed', async () => {
		const agent = await harness.loginInRoster();
		const listed = await agent.get('/api/conversations?limit=1');
		const { liveEventId } = listed.body as { liveEventId: number };
		expect(Number.isSafeInteger(liveEventId) && liveEventId >= 0).toBe(true);
		// a customer starts a conversation after the list was read, before the page opens its stream
		const invited = await agent.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		await expect.poll(async () => (await conversationOf(agent, customer.conversationId)).body.status, { timeout: 20_000 }).toBe('active');
		const fromNow = await agent.events();
		await fromNow.waitFor((event) => event.event === 'ready');
		fromNow.close();

		const resumed = await agent.events({ lastEventId: String(liveEventId) });
		await resumed.waitFor((event) => event.event === 'ready');
		const started = resumed.received.find(
			(event) => event.event === 'conversation.started' && event.data.conversation.conversationId === customer.conversationId
		);
		expect(started?.data.conversation).toMatchObject({ status: 'active' });
		// a stream opened without it would not have told the page
		expect(fromNow.received.filter((event) => event.event === 'conversation.started')).toEqual([]);
		expect((await agent.get('/api/conversations?limit=1')).body.liveEventId).toBeGreaterThanOrEqual(Number(started?.id));
		resumed.close();
	});

	it('login sets an HttpOnly SameSite=Strict cookie; logout ends the session everywhere', async () => {
		const client = new InboxClient(harness.stack().inbox.url);
		expect((await client.get('/api/session')).body.error.code).toBe('UNAUTHENTICATED');
		const wrong = await client.login(AGENT.username, 'not the password');
		expect([wrong.status, wrong.body.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
		const unknown = await client.login('nobody-here', AGENT.password);
		expect([unknown.status, unknown.body.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
		const ok = await client.login(AGENT.username, AGENT.password);
		expect(ok.status).toBe(200);
		// the account as docs/inbox-api.md §2 shows it (Ada's key, if an earlier test registered one, is public)
		expect(ok.body.account).toEqual({
			accountId: expect.stringMatching(/^acc_/),
			username: 'ada',
			displayName: 'Ada Agent',
			role: 'agent',
			agentKeyId: ok.body.account.agentKeyId === null ? null : expect.stringMatching(/^agk_/),
			agentPublicKey: ok.body.account.agentKeyId === null ? null : expect.stringMatching(/^[A-Za-z0-9_-]{43}$/)
		});
		const cookie = ok.headers.get('set-cookie') ?? '';
		expect(cookie).toMatch(/HttpOnly/);
		expect(cookie).toMatch(/SameSite=Strict/);
		expect(cookie).not.toMatch(/Secure/); // http://127.0.0.1 only
		expect((await client.get('/api/session')).status).toBe(200);
		const stream = await client.events();
		await stream.waitFor((event) => event.event === 'ready');
		const session = client.cookie;
		expect((await client.request('DELETE', '/api/session')).status).toBe(204);
		const stale = new InboxClient(harness.stack().inbox.url);
		stale.cookie = session;
		expect((await stale.get('/api/conversations')).body.error.code).toBe('UNAUTHENTICATED');
		await stream.waitForEnd();
	});

	it('failed logins are rate limited per username with Retry-After, before the password is even checked', async () => {
		const client = new InboxClient(harness.stack().inbox.url);
		for (let i = 0; i < 5; i++) expect((await client.login('mallory', 'guess')).status).toBe(401);
		const limited = await client.login('mallory', 'guess');
		expect([limited.status, limited.body.error.code]).toEqual([429, 'RATE_LIMITED']);
		expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
	});

	it('attempts sent at once are counted before they are checked: the right password comes too late', async () => {
		const admin = await harness.login(ADMIN);
		const carol = { username: 'carol', displayName: 'Carol', role: 'agent', password: 'carol password 42' };
		expect((await admin.post('/api/admin/accounts', carol)).status).toBe(201);
		const client = new InboxClient(harness.stack().inbox.url);
		// Bursts of 25 at once until none is checked any more: only the username's allowance ever was.
		let checked = 0;
		for (let round = 0; round < 20; round++) {
			const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => client.login(carol.username, `wrong guess ${i}`)));
			const statuses = answers.map((answer) => answer.status);
			expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
			const wrong = statuses.filter((status) => status === 401).length;
			checked += wrong;
			if (wrong === 0 && answers.some((answer) => Number(answer.headers.get('retry-after')) > 1)) break;
		}
		expect(checked).toBe(5);
		const right = await client.login(carol.username, carol.password);
		expect([right.status, right.body.error?.code]).toEqual([429, 'RATE_LIMITED']);
	});

	it('every change needs the server origin, JSON included', async () => {
		const agent = await harness.login();
		for (const origin of ['https://evil.example', 'null']) {
			const refused = await agent.post('/api/invites', {}, { origin });
			expect([refused.status, refused.body.error.code]).toEqual([403, 'ORIGIN_REJECTED']);
		}
		const response = await fetch(`${harness.stack().inbox.url}/api/invites`, {
			method: 'POST',
			headers: { cookie: agent.cookie!, 'content-type': 'application/json' },
			body: '{}'
		});
		expect(response.status).toBe(403);
		const login = await fetch(`${harness.stack().inbox.url}/api/session`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
			body: JSON.stringify({ username: AGENT.username, password: AGENT.password })
		});
		expect(login.status).toBe(403);
		expect(login.headers.get('set-cookie')).toBeNull();
	});

	it("registers the agent's public key once; another needs replace; another account's id is refused", async () => {
		const agent = await harness.loginOutsider();
		const key = { agentKeyId: 'agk_AdaKey000000000', publicKey: Buffer.alloc(32, 1).toString('base64url') };
		const registered = (given: { agentKeyId: string; publicKey: string }) => ({
			agentKeyId: given.agentKeyId,
			agentPublicKey: given.publicKey
		});
		expect((await agent.request('PUT', '/api/agent-key', key)).body.account).toMatchObject(registered(key));
		expect((await agent.request('PUT', '/api/agent-key', key)).status).toBe(200);
		const other = { agentKeyId: 'agk_AdaKey111111111', publicKey: Buffer.alloc(32, 2).toString('base64url') };
		expect((await agent.request('PUT', '/api/agent-key', other)).body.error.code).toBe('ALREADY_EXISTS');
		expect((await agent.request('PUT', '/api/agent-key', { ...other, replace: true })).body.account).toMatchObject(registered(other));
		expect((await agent.request('PUT', '/api/agent-key', { ...other, publicKey: 'short' })).body.error.code).toBe('INVALID_INPUT');
		expect((await agent.request('PUT', '/api/agent-key', { ...other, agentKeyId: 'key-1' })).body.error.code).toBe('INVALID_INPUT');
		const admin = await harness.login(ADMIN);
		expect((await admin.request('PUT', '/api/agent-key', other)).status).toBe(409);
		expect((await agent.get('/api/session')).body.account.agentKeyId).toBe(other.agentKeyId);
	});

	it('admins create accounts; agents may not; bad fields and taken names are refused', async () => {
		const admin = await harness.login(ADMIN);
		const agent = await harness.login();
		const created = await admin.post('/api/admin/accounts', {
			username: 'bob',
			displayName: 'Bob',
			role: 'agent',
			password: 'bob password 99'
		});
		expect(created.status).toBe(201);
		expect((await InboxClient.loggedIn(harness.stack().inbox.url, 'bob', 'bob password 99')).cookie).toBeDefined();
		expect(
			(await admin.post('/api/admin/accounts', { username: 'bob', displayName: 'B', role: 'agent', password: 'another password' })).body
				.error.code
		).toBe('ALREADY_EXISTS');
		expect(
			(await admin.post('/api/admin/accounts', { username: 'eve', displayName: 'Eve', role: 'agent', password: 'short' })).status
		).toBe(400);
		expect(
			(await agent.post('/api/admin/accounts', { username: 'eve', displayName: 'Eve', role: 'admin', password: 'long enough password' }))
				.status
		).toBe(403);
		expect((await agent.get('/api/admin/accounts')).body.error.code).toBe('FORBIDDEN');
		const usernames = (await admin.get('/api/admin/accounts')).body.data.map((account: { username: string }) => account.username);
		expect(usernames).toEqual(expect.arrayContaining(['admin', 'ada', 'alan', 'bob', 'carol']));
		expect(usernames).not.toContain('eve');
	});

	it('unknown API paths and methods answer JSON errors', async () => {
		const agent = await harness.loginInRoster();
		expect([(await agent.get('/api/nothing')).status, (await agent.get('/api/nothing')).body.error.code]).toEqual([404, 'NOT_FOUND']);
		expect((await agent.request('DELETE', '/api/invites')).body.error.code).toBe('METHOD_NOT_ALLOWED');
		expect((await agent.post('/api/invites', 'not json')).body.error.code).toBe('INVALID_REQUEST');
		expect((await agent.post('/api/invites', '{}', { 'content-type': 'text/plain' })).body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
		expect((await agent.post('/api/invites', { expiresIn: 5 })).body.error.code).toBe('INVALID_REQUEST');
	});
});

import { describe, expect, it } from 'vitest';
import {
	b64uEncode,
	generateEd25519KeyPair,
	generateX25519KeyPair,
	openConversationKey,
	sealConversationKey,
	signRoster,
	signStatement,
	type X25519KeyPair
} from '../../lib/crypto/index';
import {
	expectError,
	openCompanyKey,
	registerCompany,
	startConversation,
	useSimulator,
	V1Client,
	type TestCompany
} from '../testing/fixture';

const env = useSimulator();

const agents = Array.from({ length: 3 }, (_, i) => ({ agentKeyId: `agk_agent000${i}`, keys: generateX25519KeyPair() }));

function roster(
	company: TestCompany,
	version: number,
	members: { agentKeyId: string; keys: X25519KeyPair }[],
	overrides: Record<string, unknown> = {}
) {
	const body = {
		rosterVersion: version,
		issuedAt: '2026-11-22T10:00:00Z',
		agents: members.map((agent) => ({ agentKeyId: agent.agentKeyId, publicKey: b64uEncode(agent.keys.publicKey) })),
		...overrides
	};
	return { ...body, signature: signRoster({ companyId: company.companyId, ...body }, company.signing.secretKey) };
}

async function freshCompany(): Promise<{ company: TestCompany; client: V1Client }> {
	const company = await registerCompany(env.simulator, env.receiver.url);
	return { company, client: new V1Client(env.simulator.url, company) };
}

describe('the roster (contract 2.9, 6.7; contract-gaps §7)', () => {
	it('accepts version 1, then each previous + 1, and serves the latest', async () => {
		const { company, client } = await freshCompany();
		expectError(await client.get('/v1/roster'), 404, 'NOT_FOUND');
		const first = await client.post('/v1/roster', roster(company, 1, [agents[1], agents[0]]));
		expect(first.status).toBe(201);
		expect(first.body.agents.map((agent: { agentKeyId: string }) => agent.agentKeyId)).toEqual(['agk_agent0000', 'agk_agent0001']);
		expect((await client.post('/v1/roster', roster(company, 2, []))).status).toBe(201);
		expect((await client.get('/v1/roster')).body).toMatchObject({ rosterVersion: 2, agents: [] });
	});

	it('answers 409 ROSTER_VERSION_CONFLICT for a version other than previous + 1', async () => {
		const { company, client } = await freshCompany();
		expectError(await client.post('/v1/roster', roster(company, 2, agents)), 409, 'ROSTER_VERSION_CONFLICT');
		await client.post('/v1/roster', roster(company, 1, agents));
		expectError(await client.post('/v1/roster', roster(company, 1, agents)), 409, 'ROSTER_VERSION_CONFLICT');
		expectError(await client.post('/v1/roster', roster(company, 3, agents)), 409, 'ROSTER_VERSION_CONFLICT');
	});

	it('a roster held without any check (control API) is served, the next upload follows it, and agent wraps must name it', async () => {
		const { company, client } = await freshCompany();
		await client.post('/v1/roster', roster(company, 1, agents));
		const unsigned = { ...roster(company, 4, agents.slice(0, 1)), signature: b64uEncode(new Uint8Array(64)) };
		const path = `/_sim/companies/${company.companyId}/held-roster`;
		expectError(await env.simulator.control('POST', path, { ...unsigned, rosterVersion: 0 }), 400, 'INVALID_REQUEST');
		const held = await env.simulator.control('POST', path, unsigned);
		expect([held.status, held.body.latestRosterVersion]).toEqual([201, 4]);
		expect((await client.get('/v1/roster')).body).toEqual(unsigned);
		const conversation = await startConversation(env.simulator, client, company);
		const wraps = `/v1/conversations/${conversation.conversationId}/agent-wraps`;
		const wrap = { agentKeyId: agents[0].agentKeyId, wrap: { keyVersion: 1, sealed: 'A' } };
		expectError(await client.post(wraps, { rosterVersion: 1, wraps: [wrap] }), 409, 'ROSTER_VERSION_CONFLICT');
		expectError(await client.post('/v1/roster', roster(company, 2, agents)), 409, 'ROSTER_VERSION_CONFLICT');
		expect((await client.post('/v1/roster', roster(company, 5, agents))).status).toBe(201);
	});

	it("answers 400 SIGNATURE_INVALID for a roster not signed with the company's signing.pub, storing nothing", async () => {
		const { company, client } = await freshCompany();
		const impostor = { ...company, signing: generateEd25519KeyPair() };
		expectError(await client.post('/v1/roster', roster(impostor, 1, agents)), 400, 'SIGNATURE_INVALID');
		const otherCompany = { ...company, companyId: env.company.companyId };
		expectError(await client.post('/v1/roster', roster(otherCompany, 1, agents)), 400, 'SIGNATURE_INVALID');
		const tampered = { ...roster(company, 1, agents), issuedAt: '2026-11-22T10:00:01Z' };
		expectError(await client.post('/v1/roster', tampered), 400, 'SIGNATURE_INVALID');
		expectError(await client.get('/v1/roster'), 404, 'NOT_FOUND');
	});

	it('answers 400 INVALID_INPUT for a roster that fails validation', async () => {
		const { company, client } = await freshCompany();
		// Signed while valid, then changed: validation comes before the signature.
		const valid = roster(company, 1, agents);
		const listed = (members: (typeof agents)[number][]) =>
			members.map((agent) => ({ agentKeyId: agent.agentKeyId, publicKey: b64uEncode(agent.keys.publicKey) }));
		const invalid = [
			{ ...valid, agents: listed([agents[0], agents[0]]) },
			{ ...valid, agents: [...listed(agents), { agentKeyId: 'agk_samekey01', publicKey: b64uEncode(agents[0].keys.publicKey) }] },
			{ ...valid, agents: [{ agentKeyId: 'agk_short', publicKey: b64uEncode(agents[0].keys.publicKey) }] },
			{ ...valid, agents: [{ agentKeyId: 'agk_agent0009', publicKey: 'AAAA' }] },
			{ ...valid, issuedAt: '2026-11-22T10:00:00.000Z' },
			{ ...valid, issuedAt: '2026-02-30T10:00:00Z' },
			{ ...valid, rosterVersion: 0 },
			{ ...valid, signature: 'AAAA' },
			{ ...valid, agents: 'none' }
		];
		for (const body of invalid) expectError(await client.post('/v1/roster', body), 400, 'INVALID_INPUT');
	});

	it('refuses an issuedAt with second 60 (a leap second) with 400 INVALID_INPUT, even signed as it stands', async () => {
		const { company, client } = await freshCompany();
		const issuedAt = '2016-12-31T23:59:60Z';
		const signature = signStatement(`Service|v1|agent-roster|${company.companyId}|1|${issuedAt}|`, company.signing.secretKey);
		expectError(await client.post('/v1/roster', { rosterVersion: 1, issuedAt, agents: [], signature }), 400, 'INVALID_INPUT');
		expect((await client.post('/v1/roster', roster(company, 1, [], { issuedAt: '2016-12-31T23:59:59Z' }))).status).toBe(201);
	});
});

describe('agent wraps (contract 6.7; contract-gaps §7)', () => {
	async function setUp() {
		const { company, client } = await freshCompany();
		await client.post('/v1/roster', roster(company, 1, agents.slice(0, 2)));
		const conversation = await startConversation(env.simulator, client, company);
		const key = await openCompanyKey(client, company, conversation.conversationId);
		const wrapFor = (agent: (typeof agents)[number], keyVersion = 1) =>
			sealConversationKey({
				conversationKey: key,
				conversationId: conversation.conversationId,
				keyVersion,
				recipientPublicKey: agent.keys.publicKey
			});
		return { company, client, conversation, key, wrapFor, path: `/v1/conversations/${conversation.conversationId}/agent-wraps` };
	}

	it('stores wraps for agents of the current roster, replacing earlier ones, and lists them', async () => {
		const { client, conversation, key, wrapFor, path } = await setUp();
		const granted = await client.post(path, { rosterVersion: 1, wraps: [{ agentKeyId: agents[1].agentKeyId, wrap: wrapFor(agents[1]) }] });
		expect(granted.body).toEqual({ conversationId: conversation.conversationId, stored: 1 });
		const replacement = wrapFor(agents[0]);
		await client.post(path, { rosterVersion: 1, wraps: [{ agentKeyId: agents[0].agentKeyId, wrap: replacement }] });
		const listed = await client.get(path);
		const mine = listed.body.wraps.filter((item: { agentKeyId: string }) => item.agentKeyId === agents[0].agentKeyId);
		expect(mine).toEqual([{ agentKeyId: agents[0].agentKeyId, rosterVersion: 1, wrap: replacement }]);
		expect(openConversationKey(mine[0].wrap, conversation.conversationId, [agents[0].keys])).toEqual(key);
		expect(listed.body.wraps).toHaveLength(2);
	});

	it('refuses an agent outside the roster, a stale roster version, and malformed wraps, storing none of the request', async () => {
		const { company, client, wrapFor, path } = await setUp();
		const good = { agentKeyId: agents[0].agentKeyId, wrap: wrapFor(agents[0]) };
		const before = (await client.get(path)).body.wraps;
		expectError(
			await client.post(path, { rosterVersion: 1, wraps: [good, { agentKeyId: agents[2].agentKeyId, wrap: wrapFor(agents[2]) }] }),
			409,
			'AGENT_NOT_IN_ROSTER'
		);
		expectError(
			await client.post(path, {
				rosterVersion: 1,
				wraps: [good, { agentKeyId: agents[1].agentKeyId, wrap: { ...wrapFor(agents[1]), sealed: 'AAAA' } }]
			}),
			400,
			'INVALID_WRAP'
		);
		expectError(
			await client.post(path, { rosterVersion: 1, wraps: [{ agentKeyId: agents[1].agentKeyId, wrap: wrapFor(agents[1], 2) }] }),
			409,
			'KEY_VERSION_MISMATCH'
		);
		expectError(await client.post(path, { rosterVersion: 1, wraps: [good, good] }), 400, 'INVALID_REQUEST');
		expectError(await client.post(path, { rosterVersion: 1, wraps: [] }), 400, 'INVALID_REQUEST');
		expectError(await client.post(path, { rosterVersion: 1 }), 400, 'INVALID_REQUEST');
		expectError(await client.post(path, { wraps: [good] }), 400, 'INVALID_REQUEST');
		expect((await client.get(path)).body.wraps).toEqual(before);

		await client.post('/v1/roster', roster(company, 2, agents));
		expectError(await client.post(path, { rosterVersion: 1, wraps: [good] }), 409, 'ROSTER_VERSION_CONFLICT');
		expect(
			(await client.post(path, { rosterVersion: 2, wraps: [{ agentKeyId: agents[2].agentKeyId, wrap: wrapFor(agents[2]) }] })).status
		).toBe(200);
	});

	it('answers 409 CONVERSATION_PENDING before the conversation started', async () => {
		const { client, wrapFor } = await setUp();
		const pending = await client.post('/v1/invites', {});
		const result = await client.post(`/v1/conversations/${pending.body.conversationId}/agent-wraps`, {
			rosterVersion: 1,
			wraps: [{ agentKeyId: agents[0].agentKeyId, wrap: wrapFor(agents[0]) }]
		});
		expectError(result, 409, 'CONVERSATION_PENDING');
	});
});

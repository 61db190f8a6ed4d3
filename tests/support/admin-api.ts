/**
 * What the server's admin specs share (docs/inbox-api.md "Administration"): the stack's `signing.key`
 * (read from its key files, as the admin's page would hold it), rosters signed with it, and agents made
 * through the admin API, each with a real X25519 key registered as the browser's worker would.
 */
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Stack } from '../../src/cli/stack/stack';
import {
	b64uEncode,
	encryptMessage,
	isoSeconds,
	formatKeyFile,
	generateX25519KeyPair,
	initCrypto,
	newClientMessageId,
	openConversationKey,
	parseKeyFile,
	signRoster,
	type RosterAgent,
	type X25519KeyPair
} from '../../src/lib/crypto/index';
import { simControl } from './customer';
import { InboxClient } from './inbox-client';

/** The ways a careless client could send `signing.key` (64 bytes) or its seed (32): the server must refuse each. */
export function signingSecretSpellings(secret: Uint8Array): string[] {
	const seed = secret.subarray(0, 32);
	const bytes = (value: Uint8Array, encoding: 'base64' | 'hex') => Buffer.from(value).toString(encoding);
	return [
		b64uEncode(secret),
		formatKeyFile(secret),
		bytes(secret, 'base64'),
		bytes(secret, 'hex'),
		bytes(secret, 'hex').toUpperCase(),
		`signing.key: ${b64uEncode(secret)}, keep it safe`,
		b64uEncode(seed),
		bytes(seed, 'base64'),
		bytes(seed, 'hex'),
		// wrapped at 64 columns, percent-encoded as in a query or form, and as a PEM file of PKCS#8
		bytes(secret, 'base64').replace(/(.{64})/g, '$1\n'),
		encodeURIComponent(bytes(secret, 'base64')),
		createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' })
			.export({ format: 'pem', type: 'pkcs8' })
			.toString()
	];
}

/** The DER prefix of an Ed25519 private key in PKCS#8 (RFC 8410), followed by the 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export async function signingKeyOf(stack: Stack): Promise<Uint8Array> {
	await initCrypto();
	return parseKeyFile(await readFile(join(stack.dataDir, 'keys', 'signing.key'), 'utf8'), 64, 'signing.key');
}

/** The company's current key pair (`private.key`, `public.key`), which opens the company's wrap of each conversation key. */
export async function companyKeyPairOf(stack: Stack): Promise<X25519KeyPair> {
	await initCrypto();
	const read = async (name: string) => parseKeyFile(await readFile(join(stack.dataDir, 'keys', name), 'utf8'), 32, name);
	return { secretKey: await read('private.key'), publicKey: await read('public.key') };
}

/**
 * The body of a team member's text reply to `POST /api/v1/messages`, sealed under the conversation key that
 * the company's wrap opens (`conversation` as the proxy's `GET /api/v1/conversations/:id` gives it).
 */
export async function companyReplyBody(
	stack: Stack,
	conversationId: string,
	conversation: { wrapForCompany: Parameters<typeof openConversationKey>[0]; keyVersion: number },
	text: string
) {
	const conversationKey = openConversationKey(conversation.wrapForCompany, conversationId, [await companyKeyPairOf(stack)]);
	const encryption = encryptMessage({
		conversationKey,
		conversationId,
		senderType: 'company',
		clientMessageId: newClientMessageId(),
		keyVersion: conversation.keyVersion,
		text
	});
	return { conversationId, contentType: 'text' as const, encryption };
}

/** The body of `POST /api/admin/roster` for `agents`, signed with `signingKey`. */
export function signedRoster(companyId: string, rosterVersion: number, agents: readonly RosterAgent[], signingKey: Uint8Array) {
	const roster = { companyId, rosterVersion, issuedAt: isoSeconds(new Date()), agents: [...agents] };
	return { rosterVersion, issuedAt: roster.issuedAt, agents: roster.agents, signature: signRoster(roster, signingKey) };
}

export interface TestAgent {
	client: InboxClient;
	accountId: string;
	username: string;
	displayName: string;
	password: string;
	agentKeyId: string;
	keyPair: X25519KeyPair;
	rosterEntry: RosterAgent;
}

let made = 0;

/** A new agent account, logged in, with its own key registered. */
export async function newAgent(admin: InboxClient, label = 'agent'): Promise<TestAgent> {
	await initCrypto();
	const n = ++made;
	const username = `${label}${n}-${process.pid}`;
	const password = `password of ${username}`;
	const displayName = `${label} ${n}`;
	const created = await admin.post('/api/admin/accounts', { username, displayName, role: 'agent', password });
	if (created.status !== 201) throw new Error(`the account was not made: ${JSON.stringify(created.body)}`);
	const client = await InboxClient.loggedIn(admin.url, username, password);
	const keyPair = generateX25519KeyPair();
	const agentKeyId = `agk_${b64uEncode(keyPair.publicKey).slice(0, 16)}`;
	const registered = await client.request('PUT', '/api/agent-key', { agentKeyId, publicKey: b64uEncode(keyPair.publicKey) });
	if (registered.status !== 200) throw new Error(`the key was not registered: ${JSON.stringify(registered.body)}`);
	return {
		client,
		accountId: created.body.account.accountId,
		username,
		displayName,
		password,
		agentKeyId,
		keyPair,
		rosterEntry: { agentKeyId, publicKey: b64uEncode(keyPair.publicKey) }
	};
}

/** Waits until a grant job is no longer running and returns its view. */
export async function settledGrantJob(admin: InboxClient, jobId: string, timeoutMs = 120_000): Promise<Record<string, unknown>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const job = await admin.get(`/api/admin/grant-jobs/${jobId}`);
		if (job.status === 200 && job.body.state !== 'running') return job.body;
		if (Date.now() > deadline) throw new Error(`grant job ${jobId} still running: ${JSON.stringify(job.body)}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

/**
 * Seeds `count` conversations at the service, then signs and uploads a roster that adds a new agent:
 * the grant job that follows, once it has granted some of them (its progress on the admin's stream).
 */
export async function grantJobUnderWay(stack: Stack, admin: InboxClient, count: number, label: string) {
	const { companyId } = stack.company;
	const seeded = await simControl(stack.simUrl).control('POST', `/_sim/companies/${companyId}/conversations`, { count });
	if (seeded.status !== 201) throw new Error(`the simulator did not seed conversations: ${JSON.stringify(seeded.body)}`);
	const agent = await newAgent(admin, label);
	const { next } = (await admin.get('/api/admin/roster')).body;
	const roster = signedRoster(companyId, next.rosterVersion, [agent.rosterEntry], await signingKeyOf(stack));
	const jobId: string = (await admin.post('/api/admin/roster', roster)).body.grantJob.jobId;
	const stream = await admin.events();
	await stream.waitFor((event) => event.event === 'grant.progress' && event.data.jobId === jobId && event.data.done > 0, 60_000);
	return { jobId, agent, stream, seededIds: seeded.body.conversationIds as string[] };
}

/** How many times the service stored agent wraps for each of `conversationIds` (the simulator's count; 0 if never). */
export async function wrapUploadsOf(stack: Stack, conversationIds: readonly string[]): Promise<number[]> {
	const { body } = await simControl(stack.simUrl).control('GET', `/_sim/companies/${stack.company.companyId}/agent-wrap-uploads`);
	const counts = new Map(
		(body.data as { conversationId: string; uploads: number }[]).map((entry) => [entry.conversationId, entry.uploads])
	);
	return conversationIds.map((id) => counts.get(id) ?? 0);
}

/**
 * Signs and uploads the next roster: the latest one's agents and `entries` (docs/inbox-api.md §1 "Access":
 * an agent acts on the team's conversations only once a verified roster holds their key).
 */
export async function addToRoster(stack: Stack, admin: InboxClient, entries: readonly RosterAgent[]): Promise<void> {
	const { latest, next } = (await admin.get('/api/admin/roster')).body;
	const agents = new Map<string, RosterAgent>();
	for (const agent of [...(latest?.agents ?? []), ...entries])
		agents.set(agent.agentKeyId, { agentKeyId: agent.agentKeyId, publicKey: agent.publicKey });
	const roster = signedRoster(stack.company.companyId, next.rosterVersion, [...agents.values()], await signingKeyOf(stack));
	const uploaded = await admin.post('/api/admin/roster', roster);
	if (uploaded.status !== 201) throw new Error(`the roster was not accepted: ${JSON.stringify(uploaded.body)}`);
}

/** Registers a new key for a signed-in agent, as the browser's worker would; its roster entry. */
export async function registerKey(client: InboxClient): Promise<{ keyPair: X25519KeyPair; rosterEntry: RosterAgent }> {
	await initCrypto();
	const keyPair = generateX25519KeyPair();
	const agentKeyId = `agk_${b64uEncode(keyPair.publicKey).slice(0, 16)}`;
	const registered = await client.request('PUT', '/api/agent-key', { agentKeyId, publicKey: b64uEncode(keyPair.publicKey), replace: true });
	if (registered.status !== 200) throw new Error(`the key was not registered: ${JSON.stringify(registered.body)}`);
	return { keyPair, rosterEntry: { agentKeyId, publicKey: b64uEncode(keyPair.publicKey) } };
}

/**
 * The demo's data: each demo account gets an agent key made in Node with its backup file
 * (sealed under the demo password) and registered with the inbox; a roster of all of them is signed
 * with the demo's `signing.key` and uploaded; then simulated customers start a few conversations, write,
 * and send a photo and a receipt, and an agent answers one. Runs once per DATA_DIR.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encryptMessage, initCrypto, newClientMessageId, openConversationKey } from '../../lib/crypto/index';
import { createAgentKey, type NodeAgentKey } from './agent-keys';
import { InboxClient } from './inbox-client';
import { parcelPhoto } from './png';
import { publishRoster } from './roster';
import type { ServiceCredentials } from './service';

export interface DemoAccount {
	username: string;
	password: string;
	displayName: string;
	role: 'agent' | 'admin';
}

export interface SeedOptions {
	inboxUrl: string;
	simUrl: string;
	dataDir: string;
	company: ServiceCredentials;
	accounts: readonly DemoAccount[];
	log?: (line: string) => void;
}

interface Account {
	accountId: string;
	username: string;
	agentKeyId: string | null;
	agentPublicKey: string | null;
}

interface Conversation {
	conversationId: string;
	status: string;
	agentWraps: { agentKeyId: string; wrap: { keyVersion: number; sealed: string } }[];
}

/** Where the launcher keeps the demo's key backup files; the inbox serves them only when told this directory. */
export function demoBackupDir(dataDir: string): string {
	return join(dataDir, 'demo', 'key-backups');
}

async function sim<T>(simUrl: string, method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${simUrl}${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body)
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`simulator ${method} ${path} answered ${response.status}: ${text}`);
	return JSON.parse(text) as T;
}

/** Waits until the inbox processed the customer's arrival (webhook) and holds this agent's wrap. */
async function joined(client: InboxClient, conversationId: string): Promise<Conversation> {
	const deadline = Date.now() + 30_000;
	for (;;) {
		const conversation = await client.call<Conversation>('GET', `/api/conversations/${conversationId}`);
		if (conversation.status === 'active' && conversation.agentWraps.length > 0) return conversation;
		if (Date.now() > deadline) throw new Error(`conversation ${conversationId} did not become active with a wrap for the agent`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

/** An agent's reply, encrypted in Node with K opened from the agent's own wrap, sent through the inbox's proxy. */
async function reply(client: InboxClient, key: NodeAgentKey, conversation: Conversation, text: string): Promise<void> {
	const { wrap } = conversation.agentWraps[0];
	const secretKey = key.secretKey;
	const publicKey = Buffer.from(key.publicKey, 'base64url');
	const conversationKey = openConversationKey(wrap, conversation.conversationId, [{ publicKey: new Uint8Array(publicKey), secretKey }]);
	const encryption = encryptMessage({
		conversationKey,
		conversationId: conversation.conversationId,
		senderType: 'company',
		clientMessageId: newClientMessageId(),
		keyVersion: wrap.keyVersion,
		text
	});
	conversationKey.fill(0);
	await client.call(
		'POST',
		'/api/v1/messages',
		{ conversationId: conversation.conversationId, contentType: 'text', encryption },
		{
			'idempotency-key': `demo_${encryption.clientMessageId}`
		}
	);
}

async function customerSays(simUrl: string, customerId: string, text: string): Promise<void> {
	await sim(simUrl, 'POST', `/_sim/customers/${customerId}/messages`, { text });
}

async function customerSends(
	simUrl: string,
	customerId: string,
	file: { name: string; mime: string; data: Buffer; caption?: string }
): Promise<void> {
	await sim(simUrl, 'POST', `/_sim/customers/${customerId}/attachments`, {
		name: file.name,
		mime: file.mime,
		dataBase64: file.data.toString('base64'),
		...(file.caption ? { caption: file.caption } : {})
	});
}

/** Step 3: three conversations of simulated customers (one answered, with files), and one invitation nobody redeemed. */
async function seedConversations(options: SeedOptions, client: InboxClient, agentKey: NodeAgentKey | undefined): Promise<void> {
	const invite = () => client.call<{ conversationId: string; link: string; shortCode: string }>('POST', '/api/invites', {});
	/** A new invitation, redeemed by a simulated customer through its link or by typing its short code. */
	const customerJoins = async (redeemWith: 'link' | 'shortCode') => {
		const invitation = await invite();
		const redeem = redeemWith === 'link' ? { link: invitation.link } : { shortCode: invitation.shortCode };
		const customer = await sim<{ customerId: string }>(options.simUrl, 'POST', '/_sim/customers/redeem', redeem);
		return { customerId: customer.customerId, conversation: await joined(client, invitation.conversationId) };
	};

	const mia = await customerJoins('link');
	const parcelConversation = mia.conversation;
	await customerSays(
		options.simUrl,
		mia.customerId,
		'Hello! My order #4312 arrived today, but the box was dented and the lamp inside is cracked.'
	);
	await customerSends(options.simUrl, mia.customerId, {
		name: 'parcel.png',
		mime: 'image/png',
		data: parcelPhoto(),
		caption: 'This is how it arrived.'
	});
	if (agentKey) {
		await reply(
			client,
			agentKey,
			parcelConversation,
			'Sorry to hear that! Could you send the receipt too? We will ship a replacement right away.'
		);
	}
	const receipt = [
		'Receipt #4312',
		'1 × Desk lamp "Halo"   49.00 EUR',
		'Shipping               4.90 EUR',
		'Total                 53.90 EUR',
		''
	].join('\n');
	await customerSends(options.simUrl, mia.customerId, { name: 'receipt-4312.txt', mime: 'text/plain', data: Buffer.from(receipt) });
	await customerSays(options.simUrl, mia.customerId, 'Here it is. Thanks for the quick answer!');

	const noah = await customerJoins('shortCode');
	await customerSays(
		options.simUrl,
		noah.customerId,
		'Hi, can I still change the delivery address for my order? I typed the short code from your email.'
	);

	const lea = await customerJoins('link');
	await customerSays(
		options.simUrl,
		lea.customerId,
		'Are you open on Saturday? See https://example.com/stores/berlin for the store I mean.'
	);

	await invite(); // one invitation nobody redeemed yet: a pending conversation
}

/** Step 1: a key per demo account, made in Node, backed up under the demo password, registered with the inbox. */
async function registerDemoKeys(options: SeedOptions, log: (line: string) => void) {
	const backups = demoBackupDir(options.dataDir);
	await mkdir(backups, { recursive: true, mode: 0o700 });
	const clients = new Map<string, InboxClient>();
	const keys = new Map<string, NodeAgentKey>();
	for (const account of options.accounts) {
		const client = await InboxClient.signIn(options.inboxUrl, account.username, account.password);
		clients.set(account.username, client);
		const { account: current } = await client.call<{ account: Account }>('GET', '/api/session');
		if (current.agentKeyId) continue;
		const key = createAgentKey(account.password);
		const file = join(backups, `${account.username}.json`);
		await writeFile(file, key.backup.text, { mode: 0o600 });
		await chmod(file, 0o600);
		await client.call('PUT', '/api/agent-key', { agentKeyId: key.agentKeyId, publicKey: key.publicKey });
		keys.set(account.username, key);
		log(`key for ${account.username}: ${key.agentKeyId} (backup in ${file})`);
	}
	return { clients, keys };
}

/** Step 2: the roster of every registered demo key, signed with the demo's signing.key; the inbox takes it in at once. */
async function publishDemoRoster(options: SeedOptions, admin: InboxClient, log: (line: string) => void) {
	const { data: registered } = await admin.call<{ data: Account[] }>('GET', '/api/admin/accounts');
	const agents = registered
		.filter((account) => account.agentKeyId && account.agentPublicKey)
		.map((account) => ({ agentKeyId: account.agentKeyId as string, publicKey: account.agentPublicKey as string }));
	const roster = await publishRoster(options.company, join(options.dataDir, 'keys', 'signing.key'), agents);
	// the inbox takes a roster uploaded past it in when an admin looks at the rosters (docs/inbox-api.md §12)
	await admin.call('GET', '/api/admin/roster');
	log(`roster v${roster.rosterVersion} signed with ${agents.length} agents`);
	return roster;
}

export async function seedDemo(options: SeedOptions): Promise<{ seeded: boolean }> {
	const log = options.log ?? (() => undefined);
	const marker = join(options.dataDir, 'demo', 'seeded.json');
	if (existsSync(marker)) return { seeded: false };
	await initCrypto();
	const { clients, keys } = await registerDemoKeys(options, log);
	const admin = options.accounts.find((account) => account.role === 'admin');
	if (!admin) throw new Error('the demo needs an admin account');
	const roster = await publishDemoRoster(options, clients.get(admin.username) as InboxClient, log);

	// 3. conversations from simulated customers, answered by a demo agent
	const agent = options.accounts.find((account) => account.role === 'agent' && keys.has(account.username)) ?? admin;
	await seedConversations(options, clients.get(agent.username) as InboxClient, keys.get(agent.username));

	await mkdir(join(options.dataDir, 'demo'), { recursive: true });
	await writeFile(marker, `${JSON.stringify({ seededAt: new Date().toISOString(), rosterVersion: roster.rosterVersion }, null, '\t')}\n`);
	for (const key of keys.values()) key.secretKey.fill(0);
	return { seeded: true };
}

/** What the launcher prints: where to go, who to be, and the customer's phone. */
export function demoBanner(options: {
	inboxUrl: string;
	simUrl: string;
	accounts: readonly DemoAccount[];
	signingKeyFile: string;
	metricsUrl: string;
}): string {
	const width = Math.max(...options.accounts.map((account) => account.username.length));
	const passwordWidth = Math.max(...options.accounts.map((account) => account.password.length));
	return [
		'',
		`  Inbox:          ${options.inboxUrl}`,
		`  Customer phone: ${options.simUrl}/_sim/app   (open an invitation link there to play the customer)`,
		`  Readiness:      ${options.inboxUrl}/api/ready`,
		`  Metrics:        ${options.metricsUrl}   (Prometheus text, on a port of its own)`,
		'',
		'  Logins (the password is also the passphrase of the demo key backup):',
		...options.accounts.map(
			(account) => `    ${account.username.padEnd(width)}  ${account.password.padEnd(passwordWidth)}  ${account.role}`
		),
		'',
		'  On first sign-in in a browser, the inbox offers your demo key backup: its passphrase is your password.',
		`  To sign rosters and key rotations as admin, import ${options.signingKeyFile} under Admin → Signing key.`,
		''
	].join('\n');
}

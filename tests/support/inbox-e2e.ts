/**
 * What the inbox's browser tests (tests/inbox*.e2e.ts) share: one stack per Playwright
 * worker (simulator + registered company + the production build, from src/cli/stack/stack.ts), agents
 * made through the admin API, the roster signed with the stack's `signing.key`, simulated customers
 * driven through `/_sim/*`, and the screens' common steps (sign in, create or unlock the key).
 */
import { test as base, expect, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InboxClient } from '../../src/cli/demo/inbox-client';
import { publishRoster } from '../../src/cli/demo/roster';
import { ensureBuild } from '../../src/cli/stack/build';
import { startStack, type AccountSpec, type Stack, type StackOptions } from '../../src/cli/stack/stack';
import { seedPgliteDataDir } from './pglite-template';

export { expect };

export const ADMIN: AccountSpec = { username: 'grace', displayName: 'Grace Admin', role: 'admin', password: 'grace admin password' };

/** The passphrase every test agent chooses for its key (at least 8 characters). */
export const PASSPHRASE = 'correct horse battery';

export interface Agent extends AccountSpec {
	accountId: string;
}

interface Account {
	accountId: string;
	username: string;
	agentKeyId: string | null;
	agentPublicKey: string | null;
}

export interface Invitation {
	conversationId: string;
	link: string;
	shortCode: string;
}

/** The running product and the tools the tests use on it. */
export class InboxStack {
	private adminClient: InboxClient | null = null;
	private agents = 0;

	constructor(readonly stack: Stack) {}

	get url(): string {
		return this.stack.inbox.url;
	}

	get simUrl(): string {
		return this.stack.simUrl;
	}

	async admin(): Promise<InboxClient> {
		this.adminClient ??= await InboxClient.signIn(this.url, ADMIN.username, ADMIN.password);
		return this.adminClient;
	}

	/** A new agent account (no key yet), made by the admin. */
	async createAgent(label = 'agent'): Promise<Agent> {
		const spec: AccountSpec = {
			username: `${label}${++this.agents}-${Date.now().toString(36)}`,
			displayName: `${label[0].toUpperCase()}${label.slice(1)} ${this.agents}`,
			role: 'agent',
			password: `password of ${label} ${this.agents}!`
		};
		const { account } = await (await this.admin()).call<{ account: Account }>('POST', '/api/admin/accounts', spec);
		return { ...spec, accountId: account.accountId };
	}

	async account(username: string): Promise<Account> {
		const { data } = await (await this.admin()).call<{ data: Account[] }>('GET', '/api/admin/accounts');
		const found = data.find((account) => account.username === username);
		if (!found) throw new Error(`no account ${username}`);
		return found;
	}

	/** Signs roster n + 1 with every registered agent key, as an admin would (contract 6.7). */
	async publishRoster(): Promise<number> {
		const { data } = await (await this.admin()).call<{ data: Account[] }>('GET', '/api/admin/accounts');
		const agents = data
			.filter((account) => account.agentKeyId && account.agentPublicKey)
			.map((account) => ({ agentKeyId: account.agentKeyId as string, publicKey: account.agentPublicKey as string }));
		const roster = await publishRoster(this.stack.company, join(this.stack.dataDir, 'keys', 'signing.key'), agents);
		// the inbox reads a roster uploaded past it when an admin looks at the rosters (docs/inbox-api.md §12)
		await (await this.admin()).call('GET', '/api/admin/roster');
		return roster.rosterVersion;
	}

	/** Waits until no grant job runs: every conversation of the latest roster is sealed for its agents. */
	async grantsSettled(timeoutMs = 60_000): Promise<void> {
		const admin = await this.admin();
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const { data } = await admin.call<{ data: { state: string }[] }>('GET', '/api/admin/grant-jobs');
			if (!data.some((job) => job.state === 'running')) return;
			if (Date.now() > deadline) throw new Error('a grant job is still running');
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	}

	/** A new invitation made through the inbox's API as `agent` (the screens have their own test). */
	async invite(agent: AccountSpec): Promise<Invitation> {
		const client = await InboxClient.signIn(this.url, agent.username, agent.password);
		return client.call<Invitation>('POST', '/api/invites', {});
	}

	async customer(invitation: { link: string } | { shortCode: string }): Promise<SimCustomer> {
		return SimCustomer.redeem(this.simUrl, invitation);
	}
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the simulator's JSON answers are read loosely; the tests assert on them */
async function simCall(simUrl: string, method: string, path: string, body?: unknown): Promise<any> {
	const response = await fetch(simUrl + path, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body)
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`simulator ${method} ${path} answered ${response.status}: ${text}`);
	return text ? JSON.parse(text) : null;
}

/** A customer's phone in the simulator (docs/simulator.md, "The simulated customer app"). */
export class SimCustomer {
	private constructor(
		readonly simUrl: string,
		readonly customerId: string,
		readonly conversationId: string
	) {}

	static async redeem(simUrl: string, invitation: { link: string } | { shortCode: string }): Promise<SimCustomer> {
		const view = await simCall(simUrl, 'POST', '/_sim/customers/redeem', invitation);
		return new SimCustomer(simUrl, view.customerId, view.conversationId);
	}

	/** A text message; another `contentType` tests that receivers ignore unknown ones. */
	say(text: string, contentType?: string): Promise<{ messageId: string }> {
		return simCall(this.simUrl, 'POST', `/_sim/customers/${this.customerId}/messages`, { text, ...(contentType ? { contentType } : {}) });
	}

	sendFile(file: {
		name: string;
		mime: string;
		data: Buffer;
		caption?: string;
	}): Promise<{ messageId: string; attachment: { attachmentId: string } }> {
		return simCall(this.simUrl, 'POST', `/_sim/customers/${this.customerId}/attachments`, {
			name: file.name,
			mime: file.mime,
			dataBase64: file.data.toString('base64'),
			...(file.caption ? { caption: file.caption } : {})
		});
	}

	/** The conversation as the phone shows it, decrypted by the simulated app. */
	messages(): Promise<
		{ messageId: string; senderType: string; contentType: string; text?: string; meta?: any; fileKey?: string; error?: string }[]
	> {
		return simCall(this.simUrl, 'GET', `/_sim/customers/${this.customerId}/messages`);
	}

	/** A received file's bytes, decrypted and verified by the app. */
	async fileBytes(attachmentId: string): Promise<Buffer> {
		const response = await fetch(`${this.simUrl}/_sim/customers/${this.customerId}/attachments/${attachmentId}`);
		if (!response.ok) throw new Error(`the app could not open ${attachmentId}: ${response.status} ${await response.text()}`);
		return Buffer.from(await response.arrayBuffer());
	}

	view(): Promise<{ status: string; publicKey: string; companyTyping: boolean; userDeleted: boolean }> {
		return simCall(this.simUrl, 'GET', `/_sim/customers/${this.customerId}`);
	}

	changeDevice(invitation: { link: string } | { shortCode: string }): Promise<any> {
		return simCall(this.simUrl, 'POST', `/_sim/customers/${this.customerId}/change-device`, invitation);
	}

	deleteAccount(): Promise<any> {
		return simCall(this.simUrl, 'POST', `/_sim/customers/${this.customerId}/delete`, {});
	}
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * Starts a stack for the inbox's browser tests: a fresh data directory, the admin account, the demo
 * backup handoff off; `serviceBaseUrl` may put something between the inbox and the service.
 */
export async function startInboxStack(options: Pick<StackOptions, 'serviceBaseUrl' | 'inboxEnv'> = {}): Promise<InboxStack> {
	await ensureBuild();
	const dataDir = mkdtempSync(join(tmpdir(), 'inbox-ui-e2e-'));
	return new InboxStack(await startStack({ dataDir, accounts: [ADMIN], prepare: () => seedPgliteDataDir(dataDir), ...options }));
}

export const test = base.extend<object, { inbox: InboxStack; inboxEnv: Record<string, string> }>({
	/** More environment for the inbox of a test file (`test.use({ inboxEnv: … })`). */
	inboxEnv: [{}, { scope: 'worker', option: true }],
	inbox: [
		async ({ inboxEnv }, use) => {
			const inbox = await startInboxStack({ inboxEnv });
			await use(inbox);
			await inbox.stack.stop();
			rmSync(inbox.stack.dataDir, { recursive: true, force: true });
		},
		{ scope: 'worker', timeout: 300_000 }
	],
	baseURL: async ({ inbox }, use) => use(inbox.url)
});

// ---------------------------------------------------------------------------------------------------
// Steps on the screens

export async function signIn(page: Page, account: AccountSpec): Promise<void> {
	await page.goto('/login');
	await page.getByLabel('Username').fill(account.username);
	await page.getByLabel('Password').fill(account.password);
	await page.getByRole('button', { name: 'Sign in' }).click();
}

/** First login: the key gate asks for a new passphrase; the key is made in the worker and registered. */
export async function createKey(page: Page, passphrase = PASSPHRASE): Promise<void> {
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'create');
	await page.getByLabel('New passphrase').fill(passphrase);
	await page.getByLabel('Repeat the passphrase').fill(passphrase);
	await page.getByRole('button', { name: 'Create key' }).click();
	await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
}

export async function unlock(page: Page, passphrase = PASSPHRASE): Promise<void> {
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock');
	await page.getByLabel('Passphrase', { exact: true }).fill(passphrase);
	await page.getByRole('button', { name: 'Unlock' }).click();
	// a page that was unlocked before keeps its navigation while locked: the gate going is what says unlocked
	await expect(page.getByTestId('key-gate')).toHaveCount(0);
	await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
}

/** Locks the key with the Lock button, and waits until the server has dropped the session's unlock share. */
export async function lockKey(page: Page): Promise<void> {
	await page.getByTestId('lock').click();
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock');
	await expect
		.poll(() => page.evaluate(async () => ((await (await fetch('/api/session/unlock')).json()) as { share: string | null }).share))
		.toBeNull();
}

/**
 * A reload or another tab of the same browser session: the inbox opens without the passphrase, with the
 * key another tab unlocked (docs/crypto-worker.md "Unlock once per browser session").
 */
export async function opensUnlocked(page: Page): Promise<void> {
	await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
	await expect(page.getByTestId('key-gate')).toHaveCount(0);
}

/** A new agent signed in with a key, in the roster: ready to read conversations that start from now on. */
export async function readyAgent(page: Page, inbox: InboxStack, label = 'agent'): Promise<Agent> {
	const agent = await inbox.createAgent(label);
	await signIn(page, agent);
	await createKey(page);
	// the inbox shows before the key's registration has landed; the notice asking for a roster comes after
	// it (a roster signed earlier would leave this agent out, and customers would seal for nobody here)
	const notice = page.getByTestId('notice-new-key');
	await expect(notice).toBeVisible();
	await inbox.publishRoster();
	// the admin added the key: the notice has done its job, and goes by itself once the inbox shows a
	// conversation sealed for the key (the roster's grant job may get there before the click)
	await notice
		.getByRole('button', { name: 'Got it' })
		.click({ timeout: 5_000 })
		.catch(() => undefined);
	await expect(notice).toBeHidden();
	return agent;
}

/**
 * Waits until the inbox has processed the customer's webhooks up to `count` stored messages, so a
 * test about history is not raced by live events of messages the inbox processes meanwhile.
 */
export async function storedByInbox(inbox: InboxStack, agent: Agent, conversationId: string, count: number): Promise<void> {
	const api = await InboxClient.signIn(inbox.url, agent.username, agent.password);
	// the endpoint's largest page: enough for every conversation the tests make
	await expect
		.poll(async () => (await api.call<{ data: unknown[] }>('GET', `/api/conversations/${conversationId}/messages?limit=500`)).data.length)
		.toBe(count);
}

/** Opens a conversation from the list (it must be there, live). */
export async function openConversation(page: Page, conversationId: string): Promise<void> {
	await page.locator(`[data-conversation-id="${conversationId}"]`).first().click();
	await expect(page.getByTestId('thread')).toHaveAttribute('data-conversation-id', conversationId);
}

/** A link of the main navigation (its name may end with an unread badge). */
export function navLink(page: Page, name: 'Inbox' | 'Invite' | 'Replies' | 'Reports' | 'Key' | 'Admin') {
	return page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: new RegExp(`^${name}( \\d+ unread conversations)?$`) });
}

/** The thread's message bubbles. */
export function messages(page: Page) {
	return page.getByTestId('thread').getByTestId('message');
}

/** The README's screenshots are rewritten only when asked (UPDATE_SCREENSHOTS=1); otherwise they go to test-results/. */
const SCREENSHOTS = fileURLToPath(
	new URL(process.env.UPDATE_SCREENSHOTS === '1' ? '../../docs/screenshots/' : '../../test-results/screenshots/', import.meta.url)
);

/** Saves a screen for the README: docs/screenshots/<name>.png with UPDATE_SCREENSHOTS=1, else under test-results/. */
export async function screenshot(page: Page, name: string): Promise<void> {
	await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

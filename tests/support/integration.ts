/**
 * One running product per test file and database backend, for the integration specs over real HTTP:
 * the production build (`node build`) wired to an in-process simulator, on PGlite (seeded from the
 * migrated template) or on a database of the file's throwaway PostgreSQL cluster.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ensureBuild } from '../../src/cli/stack/build';
import { startStack, type AccountSpec, type Stack, type StackOptions } from '../../src/cli/stack/stack';
import { seedPgliteDataDir, useDatabases, type Backend, type DatabaseHarness } from './databases';
import { addToRoster, registerKey } from './admin-api';
import { InboxClient } from './inbox-client';

export const ADMIN: AccountSpec = { username: 'admin', displayName: 'Grace Admin', role: 'admin', password: 'admin password 123' };
export const AGENT: AccountSpec = { username: 'ada', displayName: 'Ada Agent', role: 'agent', password: 'ada password 1234' };

export interface StackHarness {
	stack(): Stack;
	databases: DatabaseHarness;
	/** A fresh data directory with a seeded database and this backend's DATABASE_URL, for another stack. */
	freshData(): Promise<{ dataDir: string; databaseUrl: string | null; prepare: () => Promise<void> }>;
	/** A client logged in as `account` (default the agent). */
	login(account?: AccountSpec): Promise<InboxClient>;
	/**
	 * The agent logged in with a key of their own in the latest roster (registered and signed in once per
	 * stack): conversations that start afterwards are sealed for them.
	 */
	loginInRoster(): Promise<InboxClient>;
	/** A new agent account without a key, signed in: an account outside the roster, with access to nothing. */
	loginOutsider(): Promise<InboxClient>;
}

let outsiders = 0;

export function useStack(backend: Backend, options: Partial<StackOptions> = {}): StackHarness {
	const databases = useDatabases(backend);
	let stack: Stack | undefined;
	const freshData = async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'inbox-it-'));
		const databaseUrl = await databases.databaseUrl();
		return { dataDir, databaseUrl, prepare: async () => (backend === 'PGlite' ? seedPgliteDataDir(dataDir) : undefined) };
	};
	beforeAll(async () => {
		await ensureBuild();
		const data = await freshData();
		stack = await startStack({ accounts: [ADMIN, AGENT], ...data, ...options });
	}, 600_000);
	afterAll(async () => {
		await stack?.stop();
	}, 60_000);
	return {
		stack() {
			if (!stack) throw new Error('the stack did not start');
			return stack;
		},
		databases,
		freshData,
		login: (account = AGENT) => InboxClient.loggedIn(stack!.inbox.url, account.username, account.password),
		async loginInRoster() {
			const agent = await InboxClient.loggedIn(stack!.inbox.url, AGENT.username, AGENT.password);
			if (!(await agent.get('/api/session')).body.account.agentKeyId) {
				const { rosterEntry } = await registerKey(agent);
				const admin = await InboxClient.loggedIn(stack!.inbox.url, ADMIN.username, ADMIN.password);
				await addToRoster(stack!, admin, [rosterEntry]);
			}
			return agent;
		},
		async loginOutsider() {
			const admin = await InboxClient.loggedIn(stack!.inbox.url, ADMIN.username, ADMIN.password);
			const username = `outsider-${++outsiders}-${process.pid}`;
			const password = `password of ${username}`;
			const made = await admin.post('/api/admin/accounts', { username, displayName: `Outsider ${outsiders}`, role: 'agent', password });
			if (made.status !== 201) throw new Error(`the account was not made: ${JSON.stringify(made.body)}`);
			return InboxClient.loggedIn(stack!.inbox.url, username, password);
		}
	};
}

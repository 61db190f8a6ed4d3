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
}

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
		login: (account = AGENT) => InboxClient.loggedIn(stack!.inbox.url, account.username, account.password)
	};
}

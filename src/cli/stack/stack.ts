/**
 * The whole product on one machine, for `npm start` (README.md, "Running the inbox server"), the
 * Playwright global setup and the integration tests: the service simulator in this process
 * (docs/simulator.md, "Running it"), company key files in `DATA_DIR/keys` (contract 2.1), the company
 * registered with the simulator (docs/simulator.md, "Companies (the portal)"; remembered in
 * `DATA_DIR/service.json`), accounts, and the inbox's production build (`node build`) wired to the
 * simulator on a free port.
 */
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { b64uEncode } from '../../lib/crypto/index';
import { PasswordHasher } from '../../lib/server/auth/passwords';
import { createRecordedAccount } from '../../lib/server/admin/new-account';
import { findAccountForLogin, type Role } from '../../lib/server/db/accounts';
import { openDatabase } from '../../lib/server/db/database';
import { initCompanyKeys, loadCompanyKeys } from '../../lib/server/keys/files';
import { startSimulator, type RunningSimulator } from '../../sim/server';
import { startProcess, waitForUrl, type RunningProcess } from './processes';
import { freePort } from './ports';

export interface CompanyCredentials {
	companyId: string;
	apiKey: string;
	webhookSecret: string;
	/** The simulator the company was registered with. */
	serviceBaseUrl: string;
}

export interface AccountSpec {
	username: string;
	displayName: string;
	role: Role;
	password: string;
}

const exists = (path: string) =>
	stat(path).then(
		() => true,
		() => false
	);

/** Creates the company key files in `<dataDir>/keys` unless they exist (contract 2.1). */
export async function ensureCompanyKeys(dataDir: string): Promise<void> {
	if (!(await exists(join(dataDir, 'keys', 'public.key')))) await initCompanyKeys(join(dataDir, 'keys'));
}

/**
 * Registers the company of `<dataDir>/keys` with the simulator, or reuses the registration kept in
 * `<dataDir>/service.json` for the same simulator (pointing its webhooks at `webhookUrl`).
 */
export async function registerCompany(
	simUrl: string,
	dataDir: string,
	webhookUrl: string,
	extra: Record<string, unknown> = {}
): Promise<CompanyCredentials> {
	const file = join(dataDir, 'service.json');
	if (await exists(file)) {
		const saved = JSON.parse(await readFile(file, 'utf8')) as CompanyCredentials;
		const known = await fetch(`${simUrl}/_sim/companies/${saved.companyId}`).catch(() => undefined);
		if (saved.serviceBaseUrl === simUrl && known?.ok) {
			const patched = await fetch(`${simUrl}/_sim/companies/${saved.companyId}`, {
				method: 'PATCH',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ webhookUrl })
			});
			if (!patched.ok) throw new Error(`could not point the company's webhooks at ${webhookUrl}: ${await patched.text()}`);
			return saved;
		}
	}
	const keys = await loadCompanyKeys(join(dataDir, 'keys'));
	const response = await fetch(`${simUrl}/_sim/companies`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			publicKey: b64uEncode(keys.current.publicKey),
			signingPublicKey: b64uEncode(keys.signingPublicKey),
			keyVersion: keys.current.keyVersion,
			webhookUrl,
			...extra
		})
	});
	if (response.status !== 201) throw new Error(`the simulator refused the company: ${response.status} ${await response.text()}`);
	const created = (await response.json()) as { companyId: string; apiKey: string; webhookSecret: string };
	const credentials = {
		companyId: created.companyId,
		apiKey: created.apiKey,
		webhookSecret: created.webhookSecret,
		serviceBaseUrl: simUrl
	};
	await writeFile(file, `${JSON.stringify(credentials, null, '\t')}\n`, { mode: 0o600 });
	await chmod(file, 0o600);
	return credentials;
}

/** Creates the accounts that do not exist yet, directly in the database (the inbox must not be running on PGlite). */
export async function ensureAccounts(
	options: { dataDir: string; databaseUrl: string | null },
	accounts: readonly AccountSpec[]
): Promise<void> {
	if (accounts.length === 0) return;
	const database = await openDatabase({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
	const hasher = new PasswordHasher();
	try {
		for (const account of accounts) {
			if (await findAccountForLogin(database, account.username)) continue;
			const passwordHash = await hasher.hash(account.password);
			await createRecordedAccount(
				database,
				{ username: account.username, displayName: account.displayName, role: account.role, passwordHash },
				{ via: 'command line' },
				new Date()
			);
		}
	} finally {
		await hasher.close();
		await database.close();
	}
}

export interface InboxOptions {
	dataDir: string;
	company: CompanyCredentials;
	port: number;
	databaseUrl?: string | null;
	/** Where the inbox reaches the service, when not the simulator directly (e.g. a test forwarder). */
	serviceBaseUrl?: string;
	/** More environment for the inbox (overrides). */
	env?: Record<string, string>;
	/** Arguments for node before `build` (e.g. `--import` of a test clock). */
	nodeArgs?: string[];
	/** Print the inbox's output as it comes (the demo). */
	verbose?: boolean;
	/** Every line the inbox prints (its log: docs/operations.md "Logs"). */
	onOutputLine?: (line: string) => void;
}

export interface RunningInbox {
	url: string;
	process: RunningProcess;
	/** SIGTERM, and wait for the exit. */
	stop(): Promise<void>;
	/** SIGKILL at once, as a crash would. */
	kill(): Promise<void>;
}

export function inboxEnvironment(options: InboxOptions): Record<string, string> {
	const url = `http://127.0.0.1:${options.port}`;
	return {
		SERVICE_BASE_URL: options.serviceBaseUrl ?? options.company.serviceBaseUrl,
		SERVICE_API_KEY: options.company.apiKey,
		SERVICE_WEBHOOK_SECRET: options.company.webhookSecret,
		SERVICE_COMPANY_ID: options.company.companyId,
		DATA_DIR: options.dataDir,
		DATABASE_URL: options.databaseUrl ?? '',
		// the demo and the tests run on PGlite when they have no PostgreSQL, knowing it is not durable
		ACCEPT_NON_DURABLE_DATABASE: options.databaseUrl ? 'off' : 'on',
		PORT: String(options.port),
		HOST: '127.0.0.1',
		ORIGIN: url,
		BODY_SIZE_LIMIT: '2M',
		// Longer than fetch's idle keep-alive, so a reused connection is never closed under a request.
		KEEP_ALIVE_TIMEOUT: '60',
		// the presigned attachment URLs point at the simulator, also when the inbox reaches it through a front
		STORAGE_ORIGINS: new URL(options.company.serviceBaseUrl).origin,
		...options.env
	};
}

/** Whether `line` is the inbox's log line saying its server listens (src/lib/server/node/entry.ts). */
function saysListening(line: string): boolean {
	if (!line.startsWith('{')) return false;
	try {
		return (JSON.parse(line) as { msg?: unknown }).msg === 'listening';
	} catch {
		return false;
	}
}

/**
 * Starts `node build` and waits until it says it listens and answers `/api/health`: only then is the
 * answer its own, and not that of another process on the port.
 */
export async function startInbox(options: InboxOptions): Promise<RunningInbox> {
	const url = `http://127.0.0.1:${options.port}`;
	let listening = false;
	const child = startProcess('inbox', process.execPath, [...(options.nodeArgs ?? []), 'build'], inboxEnvironment(options), {
		verbose: options.verbose,
		onLine: (line) => {
			listening ||= saysListening(line);
			options.onOutputLine?.(line);
		}
	});
	await waitForUrl(`${url}/api/health`, [child], 120_000, () => listening);
	return {
		url,
		process: child,
		stop: () => child.stop(),
		kill: () =>
			new Promise((resolve) => {
				if (child.child.exitCode !== null || child.child.signalCode !== null) return resolve();
				child.child.once('exit', () => resolve());
				child.child.kill('SIGKILL');
			})
	};
}

export interface Stack {
	sim: RunningSimulator;
	simUrl: string;
	dataDir: string;
	databaseUrl: string | null;
	company: CompanyCredentials;
	inbox: RunningInbox;
	/** Stops the inbox (gently, or killed) and starts it again with the same data, optionally other environment. */
	restartInbox(options?: { kill?: boolean; env?: Record<string, string> }): Promise<RunningInbox>;
	stop(): Promise<void>;
}

export interface StackOptions {
	dataDir: string;
	databaseUrl?: string | null;
	accounts?: readonly AccountSpec[];
	inboxPort?: number;
	simPort?: number;
	/** Where the simulator keeps its state (none: memory only). */
	simDataDir?: string;
	inboxEnv?: Record<string, string>;
	nodeArgs?: string[];
	verbose?: boolean;
	/** Every line the inbox prints, also after a restart. */
	onOutputLine?: (line: string) => void;
	/** Run before the inbox starts, e.g. to seed a PGlite database from a template. */
	prepare?: () => Promise<void>;
	/** The base URL the inbox should use to reach the simulator at `simUrl` (default: the simulator itself). */
	serviceBaseUrl?: (simUrl: string) => Promise<string>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
	const sim = await startSimulator({ port: options.simPort ?? 0, host: '127.0.0.1', dataDir: options.simDataDir });
	try {
		const databaseUrl = options.databaseUrl ?? null;
		await ensureCompanyKeys(options.dataDir);
		const port = options.inboxPort ?? (await freePort());
		const company = await registerCompany(sim.url, options.dataDir, `http://127.0.0.1:${port}/webhooks/service`);
		await options.prepare?.();
		await ensureAccounts({ dataDir: options.dataDir, databaseUrl }, options.accounts ?? []);
		const inboxOptions: InboxOptions = {
			dataDir: options.dataDir,
			company,
			port,
			databaseUrl,
			serviceBaseUrl: options.serviceBaseUrl ? await options.serviceBaseUrl(sim.url) : undefined,
			env: options.inboxEnv,
			nodeArgs: options.nodeArgs,
			verbose: options.verbose,
			onOutputLine: options.onOutputLine
		};
		const stack: Stack = {
			sim,
			simUrl: sim.url,
			dataDir: options.dataDir,
			databaseUrl,
			company,
			inbox: await startInbox(inboxOptions),
			async restartInbox(restart = {}) {
				await (restart.kill ? stack.inbox.kill() : stack.inbox.stop());
				stack.inbox = await startInbox({ ...inboxOptions, env: { ...options.inboxEnv, ...restart.env } });
				return stack.inbox;
			},
			async stop() {
				await stack.inbox.stop();
				await sim.close();
			}
		};
		return stack;
	} catch (error) {
		await sim.close();
		throw error;
	}
}

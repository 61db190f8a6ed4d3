/**
 * The production bundle (`vite build` into `build/`, README.md "Running the inbox server") for `npm start`
 * and the tests that run the real server: built once per content of the sources, under a lock so that
 * parallel test files and Playwright share one build. It is built with production secrets in its
 * environment, so a test can check that none reaches the client (docs/threat-model.md, "A compromised
 * inbox server").
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = process.cwd();
const STAMP = join(ROOT, 'build', '.inbox-build-hash');
/** Where the tests keep what they build and reuse between runs. */
export const CACHE = join(ROOT, 'node_modules', '.cache', 'inbox-tests');
const INPUTS = ['src', 'static', 'svelte.config.js', 'vite.config.ts', 'package.json', 'tsconfig.json'];

function sourceHash(inputs: readonly string[]): string {
	const hash = createHash('sha256');
	const visit = (path: string) => {
		if (!existsSync(path)) return;
		if (statSync(path).isDirectory()) {
			for (const name of readdirSync(path).sort()) visit(join(path, name));
			return;
		}
		if (/\.(spec|e2e)\.ts$/.test(path)) return;
		hash.update(relative(ROOT, path));
		hash.update(readFileSync(path));
	};
	for (const input of inputs) visit(join(ROOT, input));
	return hash.digest('hex');
}

const isFresh = (stamp: string, hash: string) => existsSync(stamp) && readFileSync(stamp, 'utf8') === hash;

async function withLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
	mkdirSync(join(lock, '..'), { recursive: true });
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch {
			// Another build runs; a lock older than 10 minutes belonged to a process that died.
			const held = statSync(lock, { throwIfNoEntry: false });
			if (held && Date.now() - held.mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}
	try {
		return await work();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

/**
 * Runs `build` unless `stamp` holds the hash of `inputs` (paths under the project, specs left out) as
 * they are now, then writes it there; under the lock `name`, so that parallel test files and Playwright
 * share one build.
 */
export async function buildOnce(name: string, inputs: readonly string[], stamp: string, build: () => Promise<void>): Promise<void> {
	if (isFresh(stamp, sourceHash(inputs))) return;
	await withLock(join(CACHE, `${name}.lock`), async () => {
		const hash = sourceHash(inputs);
		if (isFresh(stamp, hash)) return;
		await build();
		writeFileSync(stamp, hash);
	});
}

/** `vite build` with `args`; its output comes with the error when it fails. */
export async function viteBuild(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
	try {
		await run('npx', ['vite', 'build', ...args], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 });
	} catch (error) {
		const { stdout, stderr } = error as { stdout?: string; stderr?: string };
		throw new Error(`vite build failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
	}
}

export interface BuildSecrets {
	SERVICE_API_KEY: string;
	SERVICE_WEBHOOK_SECRET: string;
	SERVICE_WEBHOOK_SECRET_PREVIOUS: string;
	/** Holds company key files (contract 2.1) made for the build. */
	DATA_DIR: string;
}

/**
 * Production secrets that are present in the environment of every test build (stable across runs), so
 * a test can prove that none of them, nor any key file's content, reaches `build/client`.
 */
export async function buildSecrets(): Promise<BuildSecrets> {
	const file = join(CACHE, 'build-secrets.json');
	if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
	const { initCompanyKeys } = await import('../../lib/server/keys/files');
	const dataDir = join(CACHE, 'build-data');
	rmSync(dataDir, { recursive: true, force: true });
	await initCompanyKeys(join(dataDir, 'keys'));
	const b64u = () => randomBytes(32).toString('base64url');
	const secrets: BuildSecrets = {
		SERVICE_API_KEY: `sk_live_${b64u()}`,
		SERVICE_WEBHOOK_SECRET: `whsec_${b64u()}`,
		SERVICE_WEBHOOK_SECRET_PREVIOUS: `whsec_${b64u()}`,
		DATA_DIR: dataDir
	};
	mkdirSync(CACHE, { recursive: true });
	writeFileSync(file, JSON.stringify(secrets));
	return secrets;
}

/**
 * Builds `build/` (`npm run build`, nothing more: no test page) unless it was built from the current
 * sources; the build runs with production secrets in its environment.
 */
export async function ensureBuild(): Promise<void> {
	await buildOnce('build', INPUTS, STAMP, async () => {
		// NODE_ENV is "test" inside Vitest, which would make Vite build the development flavour.
		await viteBuild([], {
			...process.env,
			...(await buildSecrets()),
			NODE_ENV: 'production',
			SERVICE_BASE_URL: 'https://api.example.com',
			ORIGIN: 'https://inbox.example.com'
		});
	});
}

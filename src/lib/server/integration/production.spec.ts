import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedPgliteDataDir } from '$test-support/databases';
import { buildSecrets, ensureBuild, type BuildSecrets } from '../../../cli/stack/build';
import { freePort } from '../../../cli/stack/processes';
import { ensureCompanyKeys, inboxEnvironment, startInbox, type RunningInbox } from '../../../cli/stack/stack';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const run = promisify(execFile);

function filesUnder(directory: string): string[] {
	return readdirSync(directory).flatMap((name) => {
		const path = join(directory, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

describe('the production build (contract 2.1, 2.3; DESIGN "where each secret lives")', () => {
	let secrets: BuildSecrets;
	let inbox: RunningInbox;

	beforeAll(async () => {
		await ensureBuild();
		secrets = await buildSecrets();
		const dataDir = mkdtempSync(join(tmpdir(), 'inbox-prod-'));
		await ensureCompanyKeys(dataDir);
		await seedPgliteDataDir(dataDir);
		inbox = await startInbox({
			dataDir,
			port: await freePort(),
			company: {
				companyId: 'cmp_build',
				apiKey: secrets.SERVICE_API_KEY,
				webhookSecret: secrets.SERVICE_WEBHOOK_SECRET,
				serviceBaseUrl: 'http://127.0.0.1:9'
			}
		});
	}, 600_000);
	afterAll(() => inbox?.stop());

	it('was built with the API key, the webhook secrets and key files in its environment, and none of them is in build/client', () => {
		const keyFiles = readdirSync(join(secrets.DATA_DIR, 'keys')).map((name) =>
			readFileSync(join(secrets.DATA_DIR, 'keys', name), 'utf8').trim()
		);
		expect(keyFiles).toHaveLength(4);
		const needles = [secrets.SERVICE_API_KEY, secrets.SERVICE_WEBHOOK_SECRET, secrets.SERVICE_WEBHOOK_SECRET_PREVIOUS, ...keyFiles];
		const files = filesUnder(join(process.cwd(), 'build', 'client'));
		expect(files.some((file) => file.endsWith('.js'))).toBe(true);
		for (const file of files) {
			const content = readFileSync(file);
			for (const needle of needles) expect(content.includes(needle), `${needle.slice(0, 12)}… found in ${file}`).toBe(false);
		}
	});

	it('the inbox’s crypto worker takes handles, never raw keys: the conformance harness is only the test page’s', () => {
		const scripts = filesUnder(join(process.cwd(), 'build', 'client')).filter((file) => file.endsWith('.js'));
		const text = (file: string) => readFileSync(file, 'utf8');
		// Methods of the vectors' interface that take secret keys from the page.
		const harnessOnly = ['signingSecretKey', 'keyPairFromSeed'];
		const inboxWorkers = scripts.filter((file) => /workers\/entry-[^/]+\.js$/.test(file));
		expect(inboxWorkers).toHaveLength(1);
		for (const needle of harnessOnly) expect(text(inboxWorkers[0]).includes(needle), needle).toBe(false);
		// Only the harness page (served with INBOX_TEST_PAGES=1 alone) starts the conformance worker.
		const starters = scripts.filter((file) => !file.includes('/workers/') && text(file).includes('conformance-entry'));
		expect(starters).toHaveLength(1);
		expect(text(starters[0])).toContain('cryptoHarness');
		for (const file of scripts.filter((file) => !file.includes('/workers/') && file !== starters[0])) {
			for (const needle of harnessOnly) expect(text(file).includes(needle), `${needle} in ${file}`).toBe(false);
		}
	});

	it('serves pages with a Content-Security-Policy without inline scripts, and the other security headers', async () => {
		const response = await fetch(`${inbox.url}/`);
		const csp = response.headers.get('content-security-policy') ?? '';
		const scripts = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
		expect(scripts).toContain("'self'");
		expect(scripts).toContain("'wasm-unsafe-eval'");
		expect(scripts).not.toContain("'unsafe-inline'");
		expect(scripts).not.toContain("'unsafe-eval'");
		expect(csp).toMatch(/worker-src 'self'/);
		expect(csp).toMatch(/frame-ancestors 'none'/);
		expect(csp).toMatch(/object-src 'none'/);
		// the page connects to itself, its own blobs and the storage origins only, never to any http(s) URL
		expect(/connect-src ([^;]*)/.exec(csp)?.[1].split(' ')).toEqual(["'self'", 'blob:', 'http://127.0.0.1:9']);
		const html = await response.text();
		for (const inline of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)) {
			// SvelteKit's own start-up script: allowed by its hash in the policy, not by 'unsafe-inline'.
			expect(scripts).toMatch(/'sha256-/);
			expect(inline[0]).toBeDefined();
		}
		for (const path of ['/', '/api/health']) {
			const headers = (await fetch(`${inbox.url}${path}`)).headers;
			expect(headers.get('x-content-type-options')).toBe('nosniff');
			expect(headers.get('referrer-policy')).toBe('no-referrer');
			expect(headers.get('x-frame-options')).toBe('DENY');
		}
		expect((await fetch(`${inbox.url}/api/health`)).headers.get('content-security-policy')).toBe(
			"default-src 'none'; frame-ancestors 'none'; sandbox"
		);
	});

	it('refuses to start with a bad configuration, listing every problem without echoing a secret', async () => {
		const env: NodeJS.ProcessEnv = {
			...process.env,
			...inboxEnvironment({
				dataDir: mkdtempSync(join(tmpdir(), 'inbox-bad-')),
				port: await freePort(),
				company: {
					companyId: 'cmp_x',
					apiKey: 'sk_live_tooshort',
					webhookSecret: secrets.SERVICE_WEBHOOK_SECRET,
					serviceBaseUrl: 'http://api.example.com'
				}
			})
		};
		delete env.ORIGIN;
		delete env.ACCEPT_NON_DURABLE_DATABASE;
		const failure = await run(process.execPath, ['build'], { env, timeout: 60_000 }).then(
			() => undefined,
			(error: { code: number; stderr: string }) => error
		);
		expect(failure?.code).toBe(1);
		expect(failure?.stderr).toMatch(/SERVICE_BASE_URL must use https/);
		expect(failure?.stderr).toMatch(/SERVICE_API_KEY is not a valid API key/);
		expect(failure?.stderr).toMatch(/ORIGIN is not set/);
		expect(failure?.stderr).toMatch(/DATABASE_URL is not set: the embedded PGlite database does not flush to the disk/);
		expect(failure?.stderr).not.toContain('sk_live_tooshort');
	});

	it('refuses to start without usable company key files, saying how to create them', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'inbox-nokeys-'));
		const env = {
			...process.env,
			...inboxEnvironment({
				dataDir,
				port: await freePort(),
				company: {
					companyId: 'cmp_x',
					apiKey: secrets.SERVICE_API_KEY,
					webhookSecret: secrets.SERVICE_WEBHOOK_SECRET,
					serviceBaseUrl: 'http://127.0.0.1:9'
				}
			})
		};
		const failure = await run(process.execPath, ['build'], { env, timeout: 60_000 }).then(
			() => undefined,
			(error: { code: number; stderr: string }) => error
		);
		expect(failure?.code).toBe(1);
		expect(failure?.stderr).toMatch(/company key files are not usable/);
		expect(failure?.stderr).toMatch(/npm run keys -- init/);
	});
});

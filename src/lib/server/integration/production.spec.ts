import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedPgliteDataDir } from '$test-support/databases';
import { parseLog } from '$test-support/server-log';
import { buildSecrets, ensureBuild, type BuildSecrets } from '../../../cli/stack/build';
import { startProcess } from '../../../cli/stack/processes';
import { freePort } from '../../../cli/stack/ports';
import { ensureCompanyKeys, inboxEnvironment, startInbox, type InboxOptions, type RunningInbox } from '../../../cli/stack/stack';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const run = promisify(execFile);

/** A GET over a Unix socket (fetch has no such option). */
function getOverSocket(socketPath: string, path: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
	return new Promise((resolve, reject) => {
		request({ socketPath, path }, (response) => {
			response.resume();
			resolve({ status: response.statusCode ?? 0, headers: response.headers });
		})
			.on('error', reject)
			.end();
	});
}

function filesUnder(directory: string): string[] {
	return readdirSync(directory).flatMap((name) => {
		const path = join(directory, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

describe('the production build (contract 2.1, 2.3; DESIGN "where each secret lives")', () => {
	let secrets: BuildSecrets;
	let inbox: RunningInbox;

	/** What a server of the build runs with: a data directory of its own, the build's credentials, a service that never answers. */
	async function serverOptions(prefix: string): Promise<InboxOptions> {
		const dataDir = mkdtempSync(join(tmpdir(), prefix));
		await ensureCompanyKeys(dataDir);
		await seedPgliteDataDir(dataDir);
		return {
			dataDir,
			port: await freePort(),
			company: {
				companyId: 'cmp_build',
				apiKey: secrets.SERVICE_API_KEY,
				webhookSecret: secrets.SERVICE_WEBHOOK_SECRET,
				serviceBaseUrl: 'http://127.0.0.1:9'
			}
		};
	}

	beforeAll(async () => {
		await ensureBuild();
		secrets = await buildSecrets();
		inbox = await startInbox(await serverOptions('inbox-prod-'));
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

	it('ships no test page: no conformance harness, no /dev page; the inbox’s crypto worker takes handles, never raw keys', async () => {
		const build = join(process.cwd(), 'build');
		const files = filesUnder(build).map((file) => relative(build, file));
		const text = (file: string) => readFileSync(join(build, file), 'utf8');
		const scripts = files.filter((file) => file.endsWith('.js'));
		const inboxWorkers = scripts.filter((file) => /^client\/_app\/immutable\/workers\/entry-[^/]+\.js$/.test(file));
		expect(inboxWorkers).toHaveLength(1);
		expect(text(inboxWorkers[0])).toContain('inbox-chunks');
		expect(files.filter((file) => /conformance|harness|(^|\/)dev\//i.test(file))).toEqual([]);
		// The conformance worker and the crypto worker's test page (tests/pages/crypto) are in no script, client or
		// server; no page script takes secret keys as the vectors' interface does (signingSecretKey, keyPairFromSeed).
		for (const file of scripts) {
			const needles = ['inbox-conformance', 'cryptoHarness', 'dumpIndexedDb'];
			if (file.startsWith('client/')) needles.push('signingSecretKey', 'keyPairFromSeed');
			for (const needle of needles) expect(text(file).includes(needle), `${needle} in ${file}`).toBe(false);
		}
		// No route of the build is a test page: its manifest names every route by id.
		const manifests = files.filter((file) => /^server\/chunks\/manifest\.js-[^/]+\.js$/.test(file));
		expect(manifests).toHaveLength(1);
		const routeIds = [...text(manifests[0]).matchAll(/\bid: "([^"]*)"/g)].map((match) => match[1]);
		expect(routeIds).toContain('/viewer');
		expect(routeIds.filter((id) => id.startsWith('/dev'))).toEqual([]);
		expect((await fetch(`${inbox.url}/dev/crypto`)).status).toBe(404);
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

	it('gives every response, served before the hooks or through them, the security headers and its exact policy', async () => {
		const NOTHING = "default-src 'none'; frame-ancestors 'none'; sandbox";
		const PAGE =
			"default-src 'self'; frame-src 'self' blob:; worker-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; object-src 'none'; script-src 'self' 'wasm-unsafe-eval' 'sha256-…'; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; connect-src 'self' blob: http://127.0.0.1:9";
		const client = join(process.cwd(), 'build', 'client');
		const first = (folder: string, pattern: RegExp) => {
			const name = readdirSync(join(client, folder)).find((file) => pattern.test(file));
			expect(name, `${pattern} in ${folder}`).toBeDefined();
			return `/${folder}/${name}`;
		};
		const script = first('_app/immutable/entry', /^start\..*\.js$/);
		const worker = first('_app/immutable/workers', /^entry-.*\.js$/);
		const wasm = first('_app/immutable/workers/assets', /^libsodium-sumo-.*\.wasm$/);
		expect((await fetch(`${inbox.url}${wasm}`)).headers.get('content-type')).toBe('application/wasm');
		const frame = await fetch(`${inbox.url}/pdf-frame.html`);
		const frameScripts = [...(await frame.text()).matchAll(/"(\/pdf-frame\/[^"]+)"/g)].map((match) => match[1]);
		expect(frameScripts).toHaveLength(2);
		const expected: [string, RequestInit, number, string, string][] = [
			// path, request, status, Content-Security-Policy (script hashes as 'sha256-…'), X-Frame-Options
			['/login', {}, 200, PAGE, 'DENY'],
			['/no-such-page', {}, 404, PAGE, 'DENY'],
			['/api/health', {}, 200, NOTHING, 'DENY'],
			['/api/nothing-here', {}, 404, NOTHING, 'DENY'],
			// SvelteKit's CSRF check answers before the hooks run
			[
				'/login',
				{ method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' },
				403,
				NOTHING,
				'DENY'
			],
			['/favicon.svg', {}, 200, NOTHING, 'DENY'],
			[
				'/favicon.svg',
				{ headers: { 'if-none-match': (await fetch(`${inbox.url}/favicon.svg`)).headers.get('etag') ?? '' } },
				304,
				NOTHING,
				'DENY'
			],
			['/_app/version.json', {}, 200, NOTHING, 'DENY'],
			['/viewer', {}, 200, PAGE, 'DENY'],
			[script, {}, 200, NOTHING, 'DENY'],
			[
				worker,
				{},
				200,
				"default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; frame-ancestors 'none'; connect-src 'self' blob: http://127.0.0.1:9",
				'DENY'
			],
			// libsodium's module, which the workers fetch (docs/crypto-worker.md, "libsodium's WebAssembly")
			[wasm, {}, 200, NOTHING, 'DENY'],
			[
				'/pdf-frame.html',
				{},
				200,
				`sandbox allow-scripts; default-src 'none'; script-src 'sha256-…' ${frameScripts.map((path) => inbox.url + path).join(' ')}; style-src 'unsafe-inline'; img-src blob: data:; font-src blob: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'`,
				'SAMEORIGIN'
			],
			...frameScripts.map((path): [string, RequestInit, number, string, string] => [
				path,
				{ headers: { origin: 'null' } },
				200,
				NOTHING,
				'DENY'
			]),
			['/pdf-frame/nothing-here.js', {}, 404, NOTHING, 'DENY']
		];
		const seen = [];
		for (const [path, request, status] of expected) {
			const response = await fetch(`${inbox.url}${path}`, { redirect: 'manual', ...request });
			const headers = response.headers;
			seen.push([
				path,
				request,
				response.status,
				headers.get('content-security-policy')?.replace(/'sha256-[^']+'( 'sha256-[^']+')*/g, "'sha256-…'"),
				headers.get('x-frame-options')
			]);
			expect([
				path,
				status,
				headers.get('x-content-type-options'),
				headers.get('cross-origin-opener-policy'),
				headers.get('referrer-policy')
			]).toEqual([path, status, 'nosniff', 'same-origin', 'no-referrer']);
			// only the PDF frame's scripts may be read by another origin (the frame's, which is opaque)
			expect([path, headers.get('access-control-allow-origin')]).toEqual([path, frameScripts.includes(path) ? '*' : null]);
		}
		expect(seen).toEqual(expected);
		// SvelteKit would answer a revalidated page with a 304 made after the hooks, with the base policy in it
		expect((await fetch(`${inbox.url}/viewer`)).headers.get('etag')).toBeNull();
	});

	it('listens on SOCKET_PATH when it is set, and on SIGTERM finishes, closes the inbox and exits with 0', async () => {
		const options = await serverOptions('inbox-socket-');
		const socketPath = join(options.dataDir, 'inbox.sock');
		const server = startProcess('inbox', process.execPath, ['build'], { ...inboxEnvironment(options), SOCKET_PATH: socketPath });
		const exited = once(server.child, 'exit');
		const health = () => getOverSocket(socketPath, '/api/health').catch(() => undefined);
		await expect.poll(async () => (await health())?.status, { timeout: 90_000 }).toBe(200);
		expect((await health())?.headers).toMatchObject({
			'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
			'x-content-type-options': 'nosniff',
			// KEEP_ALIVE_TIMEOUT=60 of the stack's environment
			'keep-alive': 'timeout=60'
		});
		server.child.kill('SIGTERM');
		// 0: the server closed and emitted sveltekit:shutdown, on which the inbox closed (the deadline exits with 1)
		expect(await exited).toEqual([0, null]);
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
			(error: { code: number; stdout: string; stderr: string }) => error
		);
		expect(failure?.code).toBe(1);
		// one line of the log per problem
		const lines = parseLog(failure!.stdout);
		expect(lines.map(({ level, msg }) => [level, msg])).toEqual(
			Array(lines.length).fill(['error', 'the inbox cannot start: fix its configuration'])
		);
		expect(lines.map((line) => line.problem)).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/^SERVICE_BASE_URL must use https/),
				expect.stringMatching(/^SERVICE_API_KEY is not a valid API key/),
				expect.stringMatching(/^ORIGIN is not set/),
				expect.stringMatching(/^DATABASE_URL is not set: the embedded PGlite database does not flush to the disk/)
			])
		);
		expect(failure?.stderr).toBe('');
		expect(failure?.stdout).not.toContain('sk_live_tooshort');
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
			(error: { code: number; stdout: string }) => error
		);
		expect(failure?.code).toBe(1);
		expect(parseLog(failure!.stdout)).toEqual([
			expect.objectContaining({
				level: 'error',
				msg: 'the inbox cannot start: the company key files are not usable',
				problem: expect.stringMatching(/npm run keys -- init/)
			})
		]);
	});
});

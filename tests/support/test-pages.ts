/**
 * The test pages (tests/pages/, docs/crypto-worker.md "Tests and benchmark"): a Vite build of their own,
 * made once per content of their sources like the inbox's (src/cli/stack/build.ts), and a server for
 * them with the inbox's headers — the base headers by path (a worker script gets the inbox's worker
 * policy) and, for a page, the policy of the inbox's pages (svelte.config.js) with the storage origins it
 * may fetch from. They are never part of `npm run build`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve, sep } from 'node:path';
import mime from 'mime';
import svelteConfig from '../../svelte.config.js';
import { buildOnce, CACHE, viteBuild } from '../../src/cli/stack/build';
import { withConnectSources } from '../../src/lib/server/http/security-headers';
import { createLog } from '../../src/lib/server/log';
import { requestListener } from '../../src/lib/server/node/request-listener';

const OUT = join(CACHE, 'test-pages');
const INPUTS = ['tests/pages', 'src/lib', 'package.json', 'tsconfig.json'];

/** Builds the test pages into node_modules/.cache unless they were built from the current sources (about ten seconds). */
export async function ensureTestPages(): Promise<void> {
	await buildOnce('test-pages', INPUTS, join(CACHE, 'test-pages.hash'), () =>
		viteBuild(['--config', 'tests/pages/vite.config.ts', '--outDir', OUT], { ...process.env, NODE_ENV: 'production' })
	);
}

/** The Content-Security-Policy of the inbox's pages, as SvelteKit writes `kit.csp` (the test pages have no inline script to hash). */
function pagePolicy(storageOrigins: readonly string[]): string {
	const keyword = /^(self|none|unsafe-inline|unsafe-eval|wasm-unsafe-eval|strict-dynamic|report-sample)$/;
	const directives = Object.entries(svelteConfig.kit?.csp?.directives ?? {}).map(
		([name, values]) => `${name} ${(values as string[]).map((value) => (keyword.test(value) ? `'${value}'` : value)).join(' ')}`
	);
	return withConnectSources(directives.join('; '), storageOrigins);
}

/** Serves the built test pages on a free port of 127.0.0.1: `<url>/crypto/` is the crypto worker's test page. */
export async function serveTestPages(storageOrigins: readonly string[]): Promise<{ url: string; close: () => Promise<void> }> {
	const policy = pagePolicy(storageOrigins);
	const server = createServer(
		requestListener(
			(request, response) => {
				const path = new URL(request.url ?? '/', 'http://localhost').pathname;
				const file = resolve(OUT, `.${path.endsWith('/') ? `${path}index.html` : path}`);
				if (!file.startsWith(OUT + sep) || !existsSync(file) || !statSync(file).isFile()) return void response.writeHead(404).end();
				if (file.endsWith('.html')) response.setHeader('content-security-policy', policy);
				response.writeHead(200, { 'content-type': mime.getType(file) ?? 'application/octet-stream' }).end(readFileSync(file));
			},
			{ storageOrigins, log: createLog('silent') }
		)
	);
	await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () => new Promise((done) => server.close(() => done()))
	};
}

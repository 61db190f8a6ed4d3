/**
 * Playwright global setup: builds the production bundle and the test pages once (unless SKIP_BUILD) and
 * starts the stack the end-to-end tests run against (src/cli/stack/stack.ts: simulator, registered
 * company, configured inbox) and the test pages' server (test-pages.ts); the URLs are passed to the tests
 * through the environment. Besides the simulator's storage, the pages may connect to one more local
 * origin, `TEST_STORAGE_ORIGIN`, where tests serve stand-ins for the object storage (`listenAsTestStorage`).
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild } from '../../src/cli/stack/build';
import { freePort } from '../../src/cli/stack/ports';
import { startStack } from '../../src/cli/stack/stack';
import { seedPgliteDataDir } from './pglite-template';
import { ensureTestPages, serveTestPages } from './test-pages';

export default async function globalSetup(): Promise<() => Promise<void>> {
	if (!process.env.SKIP_BUILD) {
		await ensureBuild();
		await ensureTestPages();
	}
	const dataDir = mkdtempSync(join(tmpdir(), 'inbox-e2e-'));
	const simPort = await freePort();
	const testStorage = `http://127.0.0.1:${await freePort()}`;
	const storageOrigins = [`http://127.0.0.1:${simPort}`, testStorage];
	const stack = await startStack({
		dataDir,
		simPort,
		prepare: () => seedPgliteDataDir(dataDir),
		inboxEnv: { STORAGE_ORIGINS: storageOrigins.join(' ') }
	});
	const testPages = await serveTestPages(storageOrigins);
	process.env.TEST_STORAGE_ORIGIN = testStorage;
	process.env.INBOX_URL = stack.inbox.url;
	process.env.SIM_URL = stack.simUrl;
	process.env.TEST_PAGES_URL = testPages.url;
	return async () => {
		await testPages.close();
		await stack.stop();
	};
}

/** Serves `server` at `TEST_STORAGE_ORIGIN`, the one origin besides the simulator that the pages may fetch from; returns it. */
export async function listenAsTestStorage(server: Server): Promise<string> {
	const origin = process.env.TEST_STORAGE_ORIGIN;
	if (!origin) throw new Error('TEST_STORAGE_ORIGIN is not set: run through the global setup');
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(Number(new URL(origin).port), '127.0.0.1', resolve);
	});
	return origin;
}

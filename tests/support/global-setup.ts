/**
 * Playwright global setup: builds the production bundle once (unless SKIP_BUILD) and starts the stack the
 * end-to-end tests run against (src/cli/stack/stack.ts: simulator, registered company, configured inbox);
 * the URLs are passed to the tests through the environment. Besides the simulator's storage, its pages may
 * connect to one more local origin, `TEST_STORAGE_ORIGIN`, where tests serve stand-ins for the object
 * storage (`listenAsTestStorage`).
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild } from '../../src/cli/stack/build';
import { freePort } from '../../src/cli/stack/processes';
import { startStack } from '../../src/cli/stack/stack';
import { seedPgliteDataDir } from './pglite-template';

export default async function globalSetup(): Promise<() => Promise<void>> {
	if (!process.env.SKIP_BUILD) await ensureBuild();
	const dataDir = mkdtempSync(join(tmpdir(), 'inbox-e2e-'));
	const simPort = await freePort();
	const testStorage = `http://127.0.0.1:${await freePort()}`;
	const stack = await startStack({
		dataDir,
		simPort,
		prepare: () => seedPgliteDataDir(dataDir),
		// the browser test harness pages under /dev (src/routes/dev)
		inboxEnv: { INBOX_TEST_PAGES: '1', STORAGE_ORIGINS: `http://127.0.0.1:${simPort} ${testStorage}` }
	});
	process.env.TEST_STORAGE_ORIGIN = testStorage;
	process.env.INBOX_URL = stack.inbox.url;
	process.env.SIM_URL = stack.simUrl;
	return async () => {
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

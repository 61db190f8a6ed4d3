/**
 * Playwright global setup: builds the production bundle once (unless SKIP_BUILD) and starts the stack the
 * end-to-end tests run against (tests/support/stack.ts: simulator, registered company, configured inbox);
 * the URLs are passed to the tests through the environment.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild } from './build';
import { seedPgliteDataDir } from './pglite-template';
import { startStack } from './stack';

export default async function globalSetup(): Promise<() => Promise<void>> {
	if (!process.env.SKIP_BUILD) await ensureBuild();
	const dataDir = mkdtempSync(join(tmpdir(), 'inbox-e2e-'));
	const stack = await startStack({
		dataDir,
		prepare: () => seedPgliteDataDir(dataDir),
		// the browser test harness pages under /dev (src/routes/dev)
		inboxEnv: { INBOX_TEST_PAGES: '1' }
	});
	process.env.INBOX_URL = stack.inbox.url;
	process.env.SIM_URL = stack.simUrl;
	return async () => {
		await stack.stop();
	};
}

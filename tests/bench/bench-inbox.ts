/**
 * The inbox the server benchmarks run: the production build on a fresh PGlite data directory, or on the
 * PostgreSQL database it is given, with company keys and fixed credentials, and no reachable service
 * (nothing measured here calls it).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/cli/stack/ports';
import { ensureCompanyKeys, startInbox, type RunningInbox } from '../../src/cli/stack/stack';
import { seedPgliteDataDir } from '../support/pglite-template';

export const BENCH_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64url')}`;

export async function startBenchInbox(
	name: string,
	env: Record<string, string> = {},
	databaseUrl: string | null = null
): Promise<RunningInbox> {
	const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
	await ensureCompanyKeys(dataDir);
	if (!databaseUrl) await seedPgliteDataDir(dataDir);
	return startInbox({
		dataDir,
		databaseUrl,
		port: await freePort(),
		company: {
			companyId: 'cmp_bench',
			apiKey: `sk_live_${Buffer.alloc(32, 1).toString('base64url')}`,
			webhookSecret: BENCH_WEBHOOK_SECRET,
			serviceBaseUrl: 'http://127.0.0.1:9'
		},
		env
	});
}

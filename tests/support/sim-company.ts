/**
 * A simulator started in the test's process with one registered company and its key files, for the
 * server specs that drive a module against the real service (docs/simulator.md "Running it").
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/cli/stack/processes';
import { ensureCompanyKeys, registerCompany, type CompanyCredentials } from '../../src/cli/stack/stack';
import { parseKeyFile } from '../../src/lib/crypto/index';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';

export interface SimCompany {
	sim: RunningSimulator;
	company: CompanyCredentials;
	/** The company's `signing.key` (64 bytes), as the admin's page holds it. */
	signingKey: Uint8Array;
}

export async function startSimCompany(): Promise<SimCompany> {
	const sim = await startSimulator();
	const dataDir = await mkdtemp(join(tmpdir(), 'sim-company-'));
	await ensureCompanyKeys(dataDir);
	const company = await registerCompany(sim.url, dataDir, `http://127.0.0.1:${await freePort()}/webhooks/service`);
	const signingKey = parseKeyFile(await readFile(join(dataDir, 'keys', 'signing.key'), 'utf8'), 64, 'signing.key');
	return { sim, company, signingKey };
}

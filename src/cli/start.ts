/**
 * `npm start`: the whole product on this machine for a demo. Builds the inbox when its build is missing
 * or stale, starts the service simulator (state in DATA_DIR: sim.json and sim.log), creates the company
 * key files in DATA_DIR/keys, registers the company with the simulator (kept in DATA_DIR/service.json,
 * so a restart reuses it), creates the demo accounts, starts the inbox (`node build`) wired to the
 * simulator, adds the demo data (src/cli/demo/), and prints where to go and how to log in. Ctrl+C stops
 * everything.
 *
 *   PORT (3000), SIM_PORT (8787), DATA_DIR (./data)
 */
import { join, resolve } from 'node:path';
import { demoBackupDir, demoBanner, seedDemo } from './demo/seed';
import { ensureBuild } from './stack/build';
import { startStack, type AccountSpec, type Stack } from './stack/stack';

/** The demo's logins; each password is also the passphrase of that account's demo key backup. */
export const DEMO_ACCOUNTS: readonly AccountSpec[] = [
	{ username: 'admin', displayName: 'Alex Admin', role: 'admin', password: 'admin demo password' },
	{ username: 'ada', displayName: 'Ada Lovelace', role: 'agent', password: 'ada demo password' },
	{ username: 'ben', displayName: 'Ben Okafor', role: 'agent', password: 'ben demo password' }
];

function port(name: string, fallback: number): number {
	const value = process.env[name];
	if (value === undefined || value === '') return fallback;
	if (!/^[0-9]{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 65535)
		throw new Error(`${name} must be a port number, got ${JSON.stringify(value)}`);
	return Number(value);
}

async function main(): Promise<void> {
	const dataDir = resolve(process.env.DATA_DIR || './data');
	const inboxPort = port('PORT', 3000);
	const simPort = port('SIM_PORT', 8787);
	const metricsPort = port('METRICS_PORT', 9464);

	console.log('Preparing the inbox build (the first start takes a minute)...');
	await ensureBuild();
	console.log(`Starting the service simulator on port ${simPort} and the inbox on port ${inboxPort} (data in ${dataDir})...`);
	let stack: Stack;
	try {
		stack = await startStack({
			dataDir,
			databaseUrl: process.env.DATABASE_URL || null,
			accounts: DEMO_ACCOUNTS,
			inboxPort,
			simPort,
			simDataDir: dataDir,
			inboxEnv: { INBOX_DEMO_KEY_BACKUPS: demoBackupDir(dataDir), METRICS_PORT: String(metricsPort) },
			verbose: true
		});
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'EADDRINUSE') throw new Error(`port ${simPort} is taken: stop what uses it, or start with SIM_PORT=<another port>`);
		throw error;
	}

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping the inbox and the simulator...');
		await stack.stop();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
	stack.inbox.process.child.once('exit', (code) => {
		if (stopping) return;
		console.error(`The inbox stopped unexpectedly (exit ${code}).`);
		void stack.sim.close().then(() => process.exit(1));
	});

	// Demo conversations, agent keys and a signed roster; once per DATA_DIR.
	await seedDemo({
		inboxUrl: stack.inbox.url,
		simUrl: stack.simUrl,
		dataDir,
		company: stack.company,
		accounts: DEMO_ACCOUNTS,
		log: (line) => console.log(`  ${line}`)
	});
	console.log(
		demoBanner({
			inboxUrl: stack.inbox.url,
			simUrl: stack.simUrl,
			accounts: DEMO_ACCOUNTS,
			signingKeyFile: join(dataDir, 'keys', 'signing.key'),
			metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`
		})
	);
}

main().catch((error) => {
	console.error(`npm start failed: ${(error as Error)?.message ?? error}`);
	process.exit(1);
});

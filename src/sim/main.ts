/**
 * `npm run sim`: the service simulator in its own process, on `SIM_PORT` (default 8787) of
 * `SIM_HOST` (default 127.0.0.1), with its state in `DATA_DIR` when it is set (docs/simulator.md,
 * "Persistence"). Stops cleanly (the last changes written) on SIGINT and SIGTERM.
 */
import { join } from 'node:path';
import { startSimulator } from './server';

function portFromEnv(value: string | undefined): number {
	if (value === undefined || value === '') return 8787;
	const port = /^[0-9]{1,5}$/.test(value) ? Number(value) : NaN;
	if (!(port >= 0 && port <= 65535)) {
		console.error(`SIM_PORT must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
		process.exit(2);
	}
	return port;
}

async function main(): Promise<void> {
	const dataDir = process.env.DATA_DIR || undefined;
	const simulator = await startSimulator({
		port: portFromEnv(process.env.SIM_PORT),
		host: process.env.SIM_HOST || '127.0.0.1',
		dataDir,
		publicUrl: process.env.SIM_PUBLIC_URL || undefined
	});
	console.log(`Service simulator listening on ${simulator.url}`);
	console.log(`  /v1 API:          ${simulator.url}/v1`);
	console.log(`  customer app:     ${simulator.url}/_sim/app`);
	console.log(`  control API:      ${simulator.url}/_sim/… (see docs/simulator.md)`);
	console.log(`  state:            ${dataDir ? `${join(dataDir, 'sim.json')} and sim.log` : 'in memory only (set DATA_DIR to keep it)'}`);

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`${signal}: stopping the simulator`);
		simulator.close().then(
			() => process.exit(0),
			(error) => {
				console.error('the simulator did not stop cleanly:', error);
				process.exit(1);
			}
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
	console.error(`The simulator could not start: ${error instanceof Error ? error.message : error}`);
	process.exit(1);
});

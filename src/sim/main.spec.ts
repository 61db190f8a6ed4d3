import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startProcess, waitForUrl } from '../cli/stack/processes';
import { freePort } from '../cli/stack/ports';

const ROOT = new URL('../..', import.meta.url).pathname;

function simulatorProcess(env: Record<string, string>) {
	return startProcess('sim', process.execPath, ['--import', 'tsx', join(ROOT, 'src/sim/main.ts')], env);
}

/** The exit status once the process ended and its output was read; call it before the process can end. */
function exitCode(running: ReturnType<typeof simulatorProcess>): Promise<number | null> {
	return new Promise((resolve) => running.child.once('close', (code) => resolve(code)));
}

describe('npm run sim (src/sim/main.ts under tsx, in its own process)', () => {
	it('listens on SIM_PORT, keeps its state in DATA_DIR, and stops cleanly on SIGTERM', async () => {
		const port = await freePort();
		const dataDir = mkdtempSync(join(tmpdir(), 'sim-main-'));
		const running = simulatorProcess({ SIM_PORT: String(port), DATA_DIR: dataDir });
		try {
			await waitForUrl(`http://127.0.0.1:${port}/_sim/health`, [running]);
			const health = await fetch(`http://127.0.0.1:${port}/_sim/health`);
			expect(await health.json()).toMatchObject({ ok: true });
			expect(running.output()).toContain(`Service simulator listening on http://127.0.0.1:${port}`);
			expect(running.output()).toContain(join(dataDir, 'sim.json'));
			const exited = exitCode(running);
			running.child.kill('SIGTERM');
			expect(await exited).toBe(0);
			expect(existsSync(join(dataDir, 'sim.json'))).toBe(true);
			expect(existsSync(join(dataDir, 'sim.log'))).toBe(true);
		} finally {
			await running.stop();
		}
	});

	it('refuses an invalid SIM_PORT with a clear message and exit status 2', async () => {
		const running = simulatorProcess({ SIM_PORT: 'eighty' });
		expect(await exitCode(running)).toBe(2);
		expect(running.output()).toContain('SIM_PORT must be a port number');
	});
});

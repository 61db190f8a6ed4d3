import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimedBy, freePort, machinePortClaims, type PortClaims } from './ports';

const directories: string[] = [];
afterEach(() => {
	for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/**
 * Claims in a directory of their own, over `size` ports just below the machine's claimable range, which
 * the other tests' claims (and the ports they listen on) never reach.
 */
function claimsOf(pid: number, size: number, alive: (pid: number) => boolean = () => true): PortClaims {
	const directory = mkdtempSync(join(tmpdir(), 'port-claims-'));
	directories.push(directory);
	const first = machinePortClaims().range[0] - 500;
	return { directory, range: [first, first + size - 1], isAlive: alive, pid };
}

describe('freePort', () => {
	it('takes ports below the ephemeral range, where listen(0) never lands', async () => {
		const [first, last] = machinePortClaims().range;
		const ephemeral = await new Promise<number>((resolve) => {
			const server = createServer().listen(0, '127.0.0.1', () => {
				const { port } = server.address() as { port: number };
				server.close(() => resolve(port));
			});
		});
		expect(ephemeral).toBeGreaterThan(last);
		const port = await freePort();
		expect(port).toBeGreaterThanOrEqual(first);
		expect(port).toBeLessThanOrEqual(last);
		expect(claimedBy(machinePortClaims(), process.pid)).toContain(port);
	});

	it('never gives a port another live process claimed, and takes over the claims of one that ended', async () => {
		const mine = claimsOf(1001, 4, (pid) => pid !== 1003);
		writeFileSync(join(mine.directory, String(mine.range[0])), '1002');
		writeFileSync(join(mine.directory, String(mine.range[0] + 1)), '1003');
		const ports = [await freePort(mine), await freePort(mine), await freePort(mine)];
		expect(ports.sort()).toEqual([mine.range[0] + 1, mine.range[0] + 2, mine.range[0] + 3]);
		expect(claimedBy(mine, 1002)).toEqual([mine.range[0]]);
		expect(claimedBy(mine, 1001)).toEqual(ports);
		await expect(freePort(mine)).rejects.toThrow(/no free port left/);
	});

	it('passes over a port something else listens on, and keeps it claimed so no one tries it again', async () => {
		const mine = claimsOf(1001, 2);
		let server: Server | undefined;
		try {
			server = await new Promise<Server>((resolve, reject) => {
				const listening = createServer().once('error', reject);
				listening.listen(mine.range[0], '127.0.0.1', () => resolve(listening));
			});
			expect(await freePort(mine)).toBe(mine.range[1]);
			await expect(freePort(mine)).rejects.toThrow(/no free port left/);
			expect(claimedBy(mine, 1001)).toEqual([mine.range[0], mine.range[1]]);
		} finally {
			server?.close();
		}
	});

	it('gives processes claiming at once each their own ports', async () => {
		const shared = claimsOf(0, 60);
		const claimer = `
			import { freePort } from ${JSON.stringify(join(process.cwd(), 'src/cli/stack/ports.ts'))};
			const claims = { directory: ${JSON.stringify(shared.directory)}, range: [${shared.range[0]}, ${shared.range[1]}], isAlive: () => true, pid: process.pid };
			const ports = [];
			for (let i = 0; i < 12; i++) ports.push(await freePort(claims));
			console.log(JSON.stringify(ports));
		`;
		const run = () =>
			new Promise<number[]>((resolve, reject) => {
				const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', claimer], {
					stdio: ['ignore', 'pipe', 'inherit']
				});
				let output = '';
				child.stdout.on('data', (chunk) => (output += chunk));
				child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`claimer exited with ${code}`))));
			});
		const all = (await Promise.all([run(), run(), run(), run()])).flat();
		expect(all).toHaveLength(48);
		expect(new Set(all).size).toBe(48);
	}, 60_000);
});

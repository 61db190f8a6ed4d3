/**
 * Starting and stopping the processes of a local stack (stack.ts; README.md, "Running the inbox server"):
 * free ports, child processes whose output is kept for failure reports, and waiting until a URL answers
 * (the inbox's `/api/health`, docs/inbox-api.md §9).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

export interface RunningProcess {
	name: string;
	child: ChildProcess;
	/** The last lines the process printed, for error messages. */
	output(): string;
	stop(): Promise<void>;
}

export function startProcess(
	name: string,
	command: string,
	args: string[],
	env: NodeJS.ProcessEnv,
	options: { verbose?: boolean } = {}
): RunningProcess {
	const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
	const lines: string[] = [];
	const keep = (chunk: Buffer) => {
		lines.push(...chunk.toString().split('\n'));
		if (lines.length > 200) lines.splice(0, lines.length - 200);
		if (options.verbose || process.env.STACK_VERBOSE) process.stderr.write(`[${name}] ${chunk}`);
	};
	child.stdout?.on('data', keep);
	child.stderr?.on('data', keep);
	return {
		name,
		child,
		output: () => lines.join('\n'),
		stop: () =>
			new Promise((resolve) => {
				if (child.exitCode !== null || child.signalCode !== null) return resolve();
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
				setTimeout(() => child.kill('SIGKILL'), 5000).unref();
			})
	};
}

/** Polls `url` until it answers (any status), or fails with the process's output. */
export async function waitForUrl(url: string, processes: RunningProcess[], timeoutMs = 60_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		for (const running of processes) {
			if (running.child.exitCode !== null) {
				throw new Error(`${running.name} exited with ${running.child.exitCode}:\n${running.output()}`);
			}
		}
		try {
			await fetch(url, { signal: AbortSignal.timeout(2000) });
			return;
		} catch {
			if (Date.now() > deadline) {
				throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${processes.map((p) => `[${p.name}]\n${p.output()}`).join('\n')}`);
			}
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	}
}

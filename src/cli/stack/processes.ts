/**
 * Starting and stopping the processes of a local stack (stack.ts; README.md, "Running the inbox server"):
 * child processes whose output is kept for failure reports, and waiting until a URL answers
 * (the inbox's `/api/health`, docs/inbox-api.md §9). A process's output printed as it comes (`verbose`)
 * shows the inbox's JSON log lines readably (pino-pretty) on a terminal or when LOG_PRETTY=on asks, as
 * they are otherwise (docs/operations.md "Logs").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { prettyFactory } from 'pino-pretty';

export interface RunningProcess {
	name: string;
	child: ChildProcess;
	/** The last lines the process printed, for error messages. */
	output(): string;
	stop(): Promise<void>;
}

export interface ProcessOutput {
	/** Print the output as it comes. */
	verbose?: boolean;
	/** Every whole line the process prints, on either stream. */
	onLine?: (line: string) => void;
}

/** A log line of the inbox made readable; any other line as it is. */
function readable(): (line: string) => string {
	if (!process.stderr.isTTY && process.env.LOG_PRETTY !== 'on') return (line) => line;
	const pretty = prettyFactory({
		colorize: Boolean(process.stderr.isTTY),
		singleLine: true,
		translateTime: 'SYS:HH:MM:ss.l',
		ignore: 'pid,hostname'
	});
	return (line) => (line.startsWith('{') ? pretty(line).trimEnd() : line);
}

/** Calls `each` with every whole line of `stream`. */
function eachLine(stream: Readable | null, each: (line: string) => void): void {
	let partial = '';
	stream?.setEncoding('utf8');
	stream?.on('data', (chunk: string) => {
		const lines = (partial + chunk).split('\n');
		partial = lines.pop() ?? '';
		for (const line of lines) each(line);
	});
	stream?.on('end', () => partial && each(partial));
}

export function startProcess(
	name: string,
	command: string,
	args: string[],
	env: NodeJS.ProcessEnv,
	options: ProcessOutput = {}
): RunningProcess {
	const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
	const lines: string[] = [];
	const show = options.verbose || process.env.STACK_VERBOSE ? readable() : undefined;
	const keep = (line: string) => {
		lines.push(line);
		if (lines.length > 200) lines.splice(0, lines.length - 200);
		options.onLine?.(line);
		if (show) process.stderr.write(`[${name}] ${show(line)}\n`);
	};
	eachLine(child.stdout, keep);
	eachLine(child.stderr, keep);
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

/**
 * Polls `url` until it answers (any status), or fails with the process's output. With `ready`, asks only
 * once that holds (e.g. the process said it listens), so that an answer from another process on the
 * port does not count.
 */
export async function waitForUrl(
	url: string,
	processes: RunningProcess[],
	timeoutMs = 60_000,
	ready: () => boolean | Promise<boolean> = () => true
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		for (const running of processes) {
			if (running.child.exitCode !== null) {
				throw new Error(`${running.name} exited with ${running.child.exitCode}:\n${running.output()}`);
			}
		}
		if (await ready()) {
			const answered = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
				() => true,
				() => false
			);
			if (answered) return;
		}
		if (Date.now() > deadline) {
			throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${processes.map((p) => `[${p.name}]\n${p.output()}`).join('\n')}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

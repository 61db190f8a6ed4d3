/**
 * The one Inbox of this server process, started by the `init` hook before the first request: an invalid
 * configuration or unreadable key files stop the process with one clear message per problem.
 */
import { ConfigError, loadConfig } from './config';
import { startInbox, type Inbox } from './inbox';
import { KeyFileError } from './keys/files';
import { serverLogger } from './log';

let current: Inbox | undefined;

/** A stopping process exits by then, even with requests or work still open. */
const STOP_DEADLINE_MS = 10_000;

export function inbox(): Inbox {
	if (!current) throw new Error('the inbox is not started: the init hook did not run');
	return current;
}

export async function initRuntime(
	env: Record<string, string | undefined>,
	options: { defaultOrigin?: string; durableStore?: boolean } = {}
): Promise<Inbox> {
	if (current) return current;
	try {
		current = await startInbox(loadConfig(env, options));
	} catch (error) {
		// one line of the log per problem (docs/operations.md "Logs")
		if (error instanceof ConfigError)
			for (const problem of error.problems) serverLogger.error('the inbox cannot start: fix its configuration', { problem });
		else if (error instanceof KeyFileError)
			serverLogger.error('the inbox cannot start: the company key files are not usable', { problem: error.message });
		else serverLogger.error('the inbox cannot start', { reason: (error as Error)?.stack ?? String(error) });
		process.exit(1);
	}
	const started = current;
	// On a stop signal the process drains (docs/operations.md "Stopping a process"): health turns 503,
	// background work is finished or given back, and the live streams are told to reconnect elsewhere, so
	// the HTTP server's graceful shutdown is not held by them. The rest closes once the server has
	// answered its last request, and the process exits within STOP_DEADLINE_MS whatever is left.
	const drain = () => {
		setTimeout(() => {
			started.log.warn('stopping took too long: exiting', { afterMs: STOP_DEADLINE_MS });
			process.exit(1);
		}, STOP_DEADLINE_MS).unref();
		void started.drain();
	};
	process.once('SIGTERM', drain);
	process.once('SIGINT', drain);
	process.once('sveltekit:shutdown' as 'SIGTERM', () => void started.close());
	return started;
}

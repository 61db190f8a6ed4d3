/**
 * The one Inbox of this server process, started by the `init` hook before the first request: an invalid
 * configuration or unreadable key files stop the process with one clear message per problem.
 */
import { ConfigError, loadConfig } from './config';
import { startInbox, type Inbox } from './inbox';
import { KeyFileError } from './keys/files';

let current: Inbox | undefined;

export function inbox(): Inbox {
	if (!current) throw new Error('the inbox is not started: the init hook did not run');
	return current;
}

export async function initRuntime(env: Record<string, string | undefined>, options: { defaultOrigin?: string } = {}): Promise<Inbox> {
	if (current) return current;
	try {
		current = await startInbox(loadConfig(env, { defaultOrigin: options.defaultOrigin }));
	} catch (error) {
		if (error instanceof ConfigError) console.error(error.message);
		else if (error instanceof KeyFileError)
			console.error(`The inbox cannot start: the company key files are not usable.\n  - ${error.message}`);
		else console.error(`The inbox cannot start: ${(error as Error)?.stack ?? error}`);
		process.exit(1);
	}
	const started = current;
	// On a stop signal the live streams end first: open SSE connections would hold the HTTP server's
	// graceful shutdown. The rest closes once the server has answered its last request.
	const endStreams = () => void started.hub.stop();
	process.once('SIGTERM', endStreams);
	process.once('SIGINT', endStreams);
	process.once('sveltekit:shutdown' as 'SIGTERM', () => void started.close());
	return started;
}

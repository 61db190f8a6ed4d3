/**
 * The server process writes nothing but the log's JSON lines (docs/operations.md "Logs"): what adapter-node,
 * SvelteKit and the libraries print with `console` becomes a line of the log at the matching level, its
 * text without terminal colour codes (SvelteKit colours its error lines), with the request's fields when
 * printed while serving one.
 */
import { format, stripVTControlCharacters } from 'node:util';
import type { Logger as Pino } from 'pino';

type Level = 'debug' | 'info' | 'warn' | 'error';

export function routeConsoleToLog(log: Pino, target: Pick<Console, 'debug' | 'info' | 'log' | 'warn' | 'error' | 'trace'> = console): void {
	const to =
		(level: Level) =>
		(...args: unknown[]) =>
			log[level](stripVTControlCharacters(format(...args)));
	target.debug = to('debug');
	target.info = to('info');
	target.log = to('info');
	target.warn = to('warn');
	target.error = to('error');
	target.trace = to('debug');
}

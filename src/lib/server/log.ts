/**
 * The server's log (docs/operations.md "Logs"): one JSON line per event on standard output, written by
 * pino, with `level`, `time`, `msg`, the request's `requestId`, `route` and `accountId` when it runs for a
 * request (request-context.ts), and the caller's fields. Callers pass ids, codes and counts, never a
 * body, a secret, a token, a password or message content. `LOG_LEVEL` sets the least level written.
 */
import pino, { type DestinationStream, type LevelWithSilent, type Logger as Pino, type LoggerOptions } from 'pino';
import { currentRequest } from './request-context';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
	info(message: string, fields?: LogFields): void;
	warn(message: string, fields?: LogFields): void;
	error(message: string, fields?: LogFields): void;
}

const LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `LOG_LEVEL` (default `info`); a value that is none of pino's levels is a problem of the configuration. */
export function readLogLevel(value: string | undefined, problems: string[]): LevelWithSilent {
	if (value === undefined || value === '') return 'info';
	if ((LEVELS as readonly string[]).includes(value)) return value as LevelWithSilent;
	problems.push(`LOG_LEVEL must be one of ${LEVELS.join(', ')}, got ${JSON.stringify(value)}`);
	return 'info';
}

/**
 * A pino logger writing the inbox's lines to `destination`; when none is given, to standard output
 * through pino's own buffer, which it flushes when the process exits.
 */
export function createLog(level: LevelWithSilent, destination?: DestinationStream): Pino {
	const options: LoggerOptions = {
		level,
		timestamp: pino.stdTimeFunctions.isoTime,
		formatters: { level: (label) => ({ level: label }) },
		mixin() {
			const request = currentRequest();
			return request ? { requestId: request.requestId, route: request.route, accountId: request.accountId } : {};
		}
	};
	return destination ? pino(options, destination) : pino(options);
}

// One logger per process: this module is bundled into SvelteKit's server and into the server entry
// (node/entry.ts), and both write to the same standard output.
const ROOT = Symbol.for('encrypted-web-inbox.log');
const shared = globalThis as typeof globalThis & { [ROOT]?: Pino };

/** The process's pino logger, made at its first use (a command that never logs never makes it). */
export function rootLog(): Pino {
	// the configuration check (config.ts) reports a wrong LOG_LEVEL and stops the process
	return (shared[ROOT] ??= createLog(readLogLevel(process.env.LOG_LEVEL, [])));
}

/** The `Logger` the server's parts use, over a pino logger (fetched at each line: the process's is made at its first). */
export function asLogger(log: () => Pino): Logger {
	return {
		info: (message, fields) => log().info(fields ?? {}, message),
		warn: (message, fields) => log().warn(fields ?? {}, message),
		error: (message, fields) => log().error(fields ?? {}, message)
	};
}

/** The log every part of the server is given (inbox.ts). */
export const serverLogger: Logger = asLogger(rootLog);

/** The message of any thrown value, for logs. */
export function errorText(error: unknown): string {
	if (error instanceof Error) return `${(error as { code?: string }).code ? `${(error as { code?: string }).code}: ` : ''}${error.message}`;
	return String(error);
}

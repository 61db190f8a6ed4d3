/**
 * The server's log: one line per event, with a level and plain fields. Callers pass ids, codes and
 * counts, never a secret, a key, a password or message content.
 */

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
	info(message: string, fields?: LogFields): void;
	warn(message: string, fields?: LogFields): void;
	error(message: string, fields?: LogFields): void;
}

function line(level: string, message: string, fields: LogFields = {}): string {
	const rest = Object.entries(fields)
		.filter(([, value]) => value !== undefined)
		.map(([key, value]) => `${key}=${typeof value === 'string' && /[\s"=]/.test(value) ? JSON.stringify(value) : value}`)
		.join(' ');
	return `${new Date().toISOString()} ${level} ${message}${rest ? ` ${rest}` : ''}`;
}

export const consoleLogger: Logger = {
	info: (message, fields) => console.log(line('info', message, fields)),
	warn: (message, fields) => console.warn(line('warn', message, fields)),
	error: (message, fields) => console.error(line('error', message, fields))
};

/** The message of any thrown value, for logs. */
export function errorText(error: unknown): string {
	if (error instanceof Error) return `${(error as { code?: string }).code ? `${(error as { code?: string }).code}: ` : ''}${error.message}`;
	return String(error);
}

/** The server's Logger for its specs: one that says nothing, and one that keeps each line for the spec to read. */
import type { LogFields, Logger } from '../../src/lib/server/log';

export const quietLogger: Logger = { info() {}, warn() {}, error() {} };

export interface LoggedLine {
	level: 'info' | 'warn' | 'error';
	message: string;
	fields?: LogFields;
}

/** A logger keeping its lines; `messages(...levels)` gives the messages of those levels (of all when none is named). */
export function recordingLogger(): { log: Logger; lines: LoggedLine[]; messages(...levels: LoggedLine['level'][]): string[] } {
	const lines: LoggedLine[] = [];
	const keep = (level: LoggedLine['level']) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
	return {
		log: { info: keep('info'), warn: keep('warn'), error: keep('error') },
		lines,
		messages: (...levels) => lines.filter((line) => levels.length === 0 || levels.includes(line.level)).map((line) => line.message)
	};
}

/**
 * The inbox server's log as the tests read it (docs/operations.md "Logs"): every line a JSON object with
 * its level, time and message; anything else printed is a failure of the test that reads it.
 */

export interface LogLine {
	level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
	time: string;
	msg: string;
	requestId?: string;
	route?: string | null;
	accountId?: string;
	[field: string]: unknown;
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

/** The lines of `output` (blank ones aside), parsed; throws naming the first that is not a line of the log. */
export function parseLog(output: string): LogLine[] {
	return output
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((text) => {
			let line: Partial<LogLine> | undefined;
			try {
				line = JSON.parse(text);
			} catch {
				// reported below
			}
			if (
				!line ||
				typeof line !== 'object' ||
				!LEVELS.has(line.level ?? '') ||
				typeof line.msg !== 'string' ||
				Number.isNaN(Date.parse(line.time ?? ''))
			)
				throw new Error(`not a line of the log: ${text.slice(0, 300)}`);
			return line as LogLine;
		});
}

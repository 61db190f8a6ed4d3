import { describe, expect, it } from 'vitest';
import { asLogger, createLog, readLogLevel } from './log';
import { inRequest } from './request-context';

/** A pino logger over memory, and its lines parsed. */
function captured(level: Parameters<typeof createLog>[0] = 'info') {
	const written: string[] = [];
	const pino = createLog(level, { write: (line: string) => void written.push(line) });
	return { pino, log: asLogger(() => pino), written, lines: () => written.map((line) => JSON.parse(line)) };
}

describe('the server log (docs/operations.md "Logs")', () => {
	it('writes one JSON line per event with its level, an ISO time, the message and the fields', () => {
		const { log, written, lines } = captured();
		log.info('inbox started', { database: 'pglite', webhookProcessing: true, skipped: undefined });
		log.warn('webhook refused', { reason: 'too large' });
		log.error('request failed', { attempts: 3 });
		expect(written.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
		expect(
			lines().map(({ level, msg, time, pid, hostname, ...fields }) => [level, msg, typeof time, typeof pid, typeof hostname, fields])
		).toEqual([
			['info', 'inbox started', 'string', 'number', 'string', { database: 'pglite', webhookProcessing: true }],
			['warn', 'webhook refused', 'string', 'number', 'string', { reason: 'too large' }],
			['error', 'request failed', 'string', 'number', 'string', { attempts: 3 }]
		]);
		expect(lines()[0].time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
	});

	it("adds the request's id, route and account to every line logged while serving it, however deep", async () => {
		const { log, lines } = captured();
		const handler = async () => {
			await new Promise((resolve) => setTimeout(resolve, 5));
			log.warn('deep in a handler');
		};
		const request = { requestId: 'req_a', route: '/api/conversations/[conversationId]', accountId: undefined as string | undefined };
		await Promise.all([
			inRequest(request, async () => {
				request.accountId = 'acc_AAAAAAAAAAAAAAAA';
				await handler();
			}),
			inRequest({ requestId: 'req_b', route: null }, handler)
		]);
		log.info('between requests');
		expect(lines().map(({ msg, requestId, route, accountId }) => ({ msg, requestId, route, accountId }))).toEqual([
			{ msg: 'deep in a handler', requestId: 'req_a', route: '/api/conversations/[conversationId]', accountId: 'acc_AAAAAAAAAAAAAAAA' },
			{ msg: 'deep in a handler', requestId: 'req_b', route: null, accountId: undefined },
			{ msg: 'between requests', requestId: undefined, route: undefined, accountId: undefined }
		]);
	});

	it('writes nothing below its level', () => {
		const { pino, log, lines } = captured('warn');
		pino.debug('a health probe');
		log.info('inbox started');
		log.warn('webhook refused');
		expect(lines().map((line) => line.msg)).toEqual(['webhook refused']);
	});

	it("takes LOG_LEVEL as one of pino's levels, info when unset", () => {
		const problems: string[] = [];
		expect([readLogLevel(undefined, problems), readLogLevel('', problems), readLogLevel('debug', problems)]).toEqual([
			'info',
			'info',
			'debug'
		]);
		expect(problems).toEqual([]);
		expect(readLogLevel('loud', problems)).toBe('info');
		expect(problems).toEqual(['LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"']);
	});
});

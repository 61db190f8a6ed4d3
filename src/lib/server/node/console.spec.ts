import { describe, expect, it } from 'vitest';
import { createLog } from '../log';
import { inRequest } from '../request-context';
import { routeConsoleToLog } from './console';

describe('the server process\'s console (docs/operations.md "Logs")', () => {
	it('becomes lines of the log at the matching level, without colour codes, with the request being served', () => {
		const written: string[] = [];
		const target = { ...console };
		routeConsoleToLog(createLog('debug', { write: (line: string) => void written.push(line) }), target);
		target.log('Listening on http://%s:%d', '127.0.0.1', 3000);
		target.info('info');
		target.debug('debug');
		target.trace('trace');
		target.warn('[SvelteKit] %s', 'a cookie is too large');
		inRequest({ requestId: 'req_x', route: '/login' }, () => target.error('\x1b[1;31m[500] GET /login\x1b[0m', new Error('boom')));
		const lines = written.map((line) => JSON.parse(line));
		expect(lines.map(({ level, msg }) => [level, msg.split('\n')[0]])).toEqual([
			['info', 'Listening on http://127.0.0.1:3000'],
			['info', 'info'],
			['debug', 'debug'],
			['debug', 'trace'],
			['warn', '[SvelteKit] a cookie is too large'],
			['error', '[500] GET /login Error: boom']
		]);
		expect(lines[5].msg).toMatch(/\n\s+at /);
		expect([lines[5].requestId, lines[5].route]).toEqual(['req_x', '/login']);
		expect(written.join('')).not.toContain('\x1b');
	});
});

import { describe, expect, it } from 'vitest';
import { INBOX_API } from '../../inbox-api/endpoints';
import type { Session } from '../auth/sessions';
import { answer, idParam, requireSession, type ApiEvent } from './event';

describe('what a route handler needs of its request (docs/inbox-api.md §1)', () => {
	it('has the session the gate checked, and refuses a caller without one', () => {
		const session = { tokenHash: 'hash' } as Session;
		expect(requireSession({ locals: { session } } as ApiEvent)).toBe(session);
		expect(() => requireSession({ locals: {} } as ApiEvent)).toThrow(
			expect.objectContaining({ code: 'UNAUTHENTICATED', message: 'log in first' })
		);
	});

	it('answers the declared body as JSON with its status, and 204 without a body, never cached', async () => {
		const created = answer(INBOX_API.getHealth, { status: 'ok' }, 201, { 'x-extra': 'yes' });
		expect(created.status).toBe(201);
		expect(created.headers.get('x-extra')).toBe('yes');
		expect(await created.json()).toEqual({ status: 'ok' });
		const plain = answer(INBOX_API.getHealth, { status: 'ok' });
		expect(plain.status).toBe(200);
		const empty = answer(INBOX_API.logout, undefined, 200, { 'x-extra': 'yes' });
		expect(empty.status).toBe(204);
		expect(empty.body).toBeNull();
		expect(empty.headers.get('cache-control')).toBe('no-store');
		expect(empty.headers.get('x-extra')).toBe('yes');
	});

	it('takes a path parameter only when it is an id of the contract, else answers that nothing has it', () => {
		expect(idParam('conv_1-A', 'conversationId')).toBe('conv_1-A');
		for (const value of [undefined, '', 'a.b', 'x'.repeat(129)])
			expect(() => idParam(value, 'labelId'), String(value)).toThrow(
				expect.objectContaining({ code: 'NOT_FOUND', message: `no labelId ${JSON.stringify((value ?? '').slice(0, 140))}` })
			);
		expect(() => idParam('.'.repeat(200), 'labelId')).toThrow(`no labelId ${JSON.stringify('.'.repeat(140))}`);
	});
});

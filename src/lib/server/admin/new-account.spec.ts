import { describe, expect, it } from 'vitest';
import { validateNewAccount } from './new-account';

const valid = { username: 'ada.l@team', displayName: '  Ada  ', role: 'agent', password: 'x'.repeat(12) };

describe('validateNewAccount', () => {
	it('takes a valid account and trims the display name', () => {
		expect(validateNewAccount(valid)).toEqual({ username: 'ada.l@team', displayName: 'Ada', role: 'agent', password: 'x'.repeat(12) });
		expect(validateNewAccount({ ...valid, role: 'admin', password: 'y'.repeat(1024), username: 'u'.repeat(64) }).role).toBe('admin');
	});

	it.each([
		[{ username: '' }, 'username must be 1 to 64 characters'],
		[{ username: 'u'.repeat(65) }, 'username must be 1 to 64 characters'],
		[{ username: 'ada lovelace' }, 'username must be 1 to 64 characters'],
		[{ displayName: '   ' }, 'displayName must be 1 to 100 characters'],
		[{ displayName: 'd'.repeat(101) }, 'displayName must be 1 to 100 characters'],
		[{ role: 'owner' }, 'role must be agent or admin'],
		[{ password: 'x'.repeat(11) }, 'password must be 12 to 1024 characters'],
		[{ password: 'x'.repeat(1025) }, 'password must be 12 to 1024 characters'],
		[{ password: 12345678901234 }, 'password must be 12 to 1024 characters']
	])('refuses %o as INVALID_REQUEST naming the field', (change, message) => {
		expect(() => validateNewAccount({ ...valid, ...change })).toThrow(
			expect.objectContaining({ code: 'INVALID_REQUEST', status: 400, message: expect.stringContaining(message) })
		);
	});
});

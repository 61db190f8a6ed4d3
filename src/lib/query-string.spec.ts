import { describe, expect, it } from 'vitest';
import { queryString } from './query-string';

describe('queryString', () => {
	it('leaves out parameters without a value, and the ? when none is left', () => {
		expect(queryString({})).toBe('');
		expect(queryString({ a: undefined, b: null, c: '' })).toBe('');
		expect(queryString({ limit: 50, cursor: null, status: 'open' })).toBe('?limit=50&status=open');
	});

	it('keeps a zero and encodes what must be encoded', () => {
		expect(queryString({ after: 0 })).toBe('?after=0');
		expect(queryString({ q: 'a b&c=d/é' })).toBe('?q=a+b%26c%3Dd%2F%C3%A9');
	});
});

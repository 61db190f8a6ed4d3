import { describe, expect, it } from 'vitest';
import { requireAgentKeyId, requireBytes, requireId, requireIntegerIn, requireIssuedAt, requireKeyVersion } from './rules';

describe('the shared value rules (contract 1.1, 2.9)', () => {
	it('name the value and the rule it breaks', () => {
		expect(() => requireId('a b', 'conversationId')).toThrow('conversationId must match ^[A-Za-z0-9_-]{1,128}$');
		expect(requireId('a'.repeat(128), 'id')).toHaveLength(128);
		expect(() => requireAgentKeyId('agk_short')).toThrow('agentKeyId must be agk_ followed by 8 to 64 characters of [A-Za-z0-9_-]');
		expect(() => requireIntegerIn(11, 1, 10, 'limit')).toThrow('limit must be an integer from 1 to 10');
		expect(() => requireKeyVersion(0)).toThrow('keyVersion must be an integer from 1 to 2147483647');
		expect(() => requireKeyVersion(0, 'rosterVersion')).toThrow('rosterVersion must be an integer from 1 to 2147483647');
		expect(() => requireBytes('AAAA', 3, 'nonce')).toThrow('nonce must be bytes');
		expect(() => requireBytes(new Uint8Array(2), 3, 'nonce')).toThrow('nonce must be 3 bytes, got 2');
	});

	it('take issuedAt only in the exact form, naming a date that exists, from year 1', () => {
		expect(requireIssuedAt('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00Z');
		expect(requireIssuedAt('2024-02-29T23:59:59Z')).toBe('2024-02-29T23:59:59Z');
		expect(() => requireIssuedAt('2026-11-22 10:00:00Z')).toThrow('issuedAt must be exactly YYYY-MM-DDTHH:MM:SSZ');
		for (const value of [
			'0000-01-01T00:00:00Z',
			'2026-01-00T00:00:00Z',
			'2026-02-29T00:00:00Z',
			'2026-13-01T00:00:00Z',
			'2026-01-01T24:00:00Z'
		]) {
			expect(() => requireIssuedAt(value), value).toThrow(`issuedAt ${value} is not an existing date`);
		}
	});
});

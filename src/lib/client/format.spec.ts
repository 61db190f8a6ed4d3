import { describe, expect, it } from 'vitest';
import { avatarHue, fingerprintFromB64u, formatBytes, formatCount, formatRelative, shortConversationLabel } from './format';

describe('format', () => {
	it('formats sizes in binary units', () => {
		expect(formatBytes(0)).toBe('0 B');
		expect(formatBytes(1023)).toBe('1023 B');
		expect(formatBytes(1536)).toBe('1.5 KiB');
		expect(formatBytes(25 * 1024 * 1024)).toBe('25 MiB');
	});

	it('writes counts as toLocaleString does, with one formatter', () => {
		for (const count of [0, 7, 999, 1000, 10_029, 1_000_000]) expect(formatCount(count)).toBe(count.toLocaleString());
	});

	it('says how long ago in the least words', () => {
		const now = new Date('2026-11-22T12:00:00Z');
		expect(formatRelative('2026-11-22T11:59:30Z', now)).toBe('now');
		expect(formatRelative('2026-11-22T11:55:00Z', now)).toBe('5 min');
		expect(formatRelative(null, now)).toBe('');
		expect(formatRelative('not a date', now)).toBe('');
	});

	it('labels conversations and gives each a stable hue', () => {
		expect(shortConversationLabel('conv_AbCdEfGh12345678')).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
		expect(shortConversationLabel('conv_AbCdEfGh12345678')).toBe(shortConversationLabel('conv_AbCdEfGh12345678'));
		const names = new Set(Array.from({ length: 1000 }, (_, i) => shortConversationLabel(`conv_${i.toString(36).padStart(16, 'x')}`)));
		// a thousand customers without a profile: almost all told apart by name alone
		expect(names.size).toBeGreaterThan(950);
		expect(avatarHue('conv_a')).toBe(avatarHue('conv_a'));
		expect(avatarHue('conv_a')).toBeLessThan(360);
	});

	it('shows a b64u fingerprint as 16 groups of 4 hex digits', () => {
		const bytes = Uint8Array.from({ length: 32 }, (_, i) => i);
		const b64u = Buffer.from(bytes).toString('base64url');
		expect(fingerprintFromB64u(b64u)).toBe('0001 0203 0405 0607 0809 0a0b 0c0d 0e0f 1011 1213 1415 1617 1819 1a1b 1c1d 1e1f');
		expect(fingerprintFromB64u('short')).toBeNull();
	});
});

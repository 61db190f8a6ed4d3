import { describe, expect, it } from 'vitest';
import { parseProfileText, profileText } from './profile';

describe('profile text (docs/inbox-api.md §4 "Customer profile")', () => {
	it('round trips name and notes, trims the name, bounds both, and reads anything else as empty', () => {
		expect(parseProfileText(profileText({ name: '  Zoë Ång ', notes: 'line 1\nline 2' }))).toEqual({
			name: 'Zoë Ång',
			notes: 'line 1\nline 2'
		});
		expect(parseProfileText(profileText({ name: 'x'.repeat(150), notes: 'y'.repeat(5000) }))).toEqual({
			name: 'x'.repeat(100),
			notes: 'y'.repeat(4000)
		});
		for (const odd of ['not json', 'null', '[]', '{"name":5,"notes":{}}']) expect(parseProfileText(odd)).toEqual({ name: '', notes: '' });
	});
});

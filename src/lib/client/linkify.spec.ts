import { describe, expect, it } from 'vitest';
import { linkify, safeHref } from './linkify';

describe('linkify', () => {
	it('keeps plain text as one text segment', () => {
		expect(linkify('hello <b>there</b>')).toEqual([{ kind: 'text', text: 'hello <b>there</b>' }]);
	});

	it('turns http and https URLs into links and leaves sentence punctuation outside', () => {
		expect(linkify('see https://example.com/a?b=1, or http://x.test.')).toEqual([
			{ kind: 'text', text: 'see ' },
			{ kind: 'link', text: 'https://example.com/a?b=1', href: 'https://example.com/a?b=1' },
			{ kind: 'text', text: ', or ' },
			{ kind: 'link', text: 'http://x.test', href: 'http://x.test/' },
			{ kind: 'text', text: '.' }
		]);
	});

	it('keeps balanced brackets and drops an unbalanced closing one', () => {
		expect(linkify('(https://en.wikipedia.org/wiki/Foo_(bar))')).toEqual([
			{ kind: 'text', text: '(' },
			{ kind: 'link', text: 'https://en.wikipedia.org/wiki/Foo_(bar)', href: 'https://en.wikipedia.org/wiki/Foo_(bar)' },
			{ kind: 'text', text: ')' }
		]);
	});

	it('never links other schemes', () => {
		for (const text of ['javascript:alert(1)', 'data:text/html,<script>1</script>', 'file:///etc/passwd', 'vbscript:x', 'ftp://host/x']) {
			expect(linkify(text).every((segment) => segment.kind === 'text')).toBe(true);
		}
	});

	it('does not link a URL hidden after javascript:', () => {
		const segments = linkify('javascript://https://example.com');
		const links = segments.filter((segment) => segment.kind === 'link');
		expect(links.map((link) => link.kind === 'link' && link.href)).toEqual(['https://example.com/']);
		expect(segments.map((segment) => segment.text).join('')).toBe('javascript://https://example.com');
	});

	it('reassembles to the original text', () => {
		const text = 'a https://x.test/ b\nhttps://y.test/(c) d. http://[::1]:8080/p';
		expect(
			linkify(text)
				.map((segment) => segment.text)
				.join('')
		).toBe(text);
	});

	it('refuses hosts that are not URLs and very long candidates', () => {
		expect(safeHref('https://')).toBeNull();
		expect(safeHref(`https://example.com/${'a'.repeat(3000)}`)).toBeNull();
		expect(safeHref('https://bank.example@evil.test/')).toBeNull();
		expect(safeHref('https://example.com/x')).toBe('https://example.com/x');
	});
});

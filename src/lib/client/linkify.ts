/**
 * Message text as display segments: plain text, and `http(s)` URLs that the thread turns
 * into `<a rel="noopener noreferrer nofollow" target="_blank">` elements. Text is never parsed as HTML;
 * every other scheme stays text.
 */

export type TextSegment = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

/** A candidate: scheme, then everything up to whitespace or characters that never end a URL in prose. */
// eslint-disable-next-line no-control-regex -- control characters end a URL candidate
const URL_CANDIDATE = /\bhttps?:\/\/[^\s<>"'`\u0000-\u001f\u007f]+/giu;
const TRAILING_PUNCTUATION = /[.,;:!?'"*_~]+$/u;
/** Longer links stay text: nobody types them, and a huge href helps nobody. */
const MAX_LINK_LENGTH = 2048;

/** Drops punctuation that ends the sentence, and a closing bracket without its opening one. */
function trimCandidate(candidate: string): string {
	let url = candidate;
	for (;;) {
		const before = url;
		url = url.replace(TRAILING_PUNCTUATION, '');
		for (const [open, close] of [
			['(', ')'],
			['[', ']'],
			['{', '}']
		] as const) {
			if (url.endsWith(close) && count(url, open) < count(url, close)) url = url.slice(0, -1);
		}
		if (url === before) return url;
	}
}

function count(text: string, character: string): number {
	let total = 0;
	for (const c of text) if (c === character) total++;
	return total;
}

/** The href for a candidate, or null when it is not a well-formed http(s) URL with a host. */
export function safeHref(candidate: string): string | null {
	if (candidate.length > MAX_LINK_LENGTH) return null;
	let url: URL;
	try {
		url = new URL(candidate);
	} catch {
		return null;
	}
	if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
	// `https://bank.example@evil.test/` reads as the bank but goes elsewhere: such links stay text.
	if (url.username !== '' || url.password !== '') return null;
	return url.href;
}

export function linkify(text: string): TextSegment[] {
	const segments: TextSegment[] = [];
	let last = 0;
	const pushText = (value: string) => {
		if (value === '') return;
		const previous = segments[segments.length - 1];
		if (previous?.kind === 'text') previous.text += value;
		else segments.push({ kind: 'text', text: value });
	};
	for (const match of text.matchAll(URL_CANDIDATE)) {
		const start = match.index ?? 0;
		const candidate = trimCandidate(match[0]);
		const href = safeHref(candidate);
		if (href === null) continue;
		pushText(text.slice(last, start));
		segments.push({ kind: 'link', text: candidate, href });
		last = start + candidate.length;
	}
	pushText(text.slice(last));
	return segments;
}

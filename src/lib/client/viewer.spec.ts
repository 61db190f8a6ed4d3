import { describe, expect, it } from 'vitest';
import { isThumbnailable, parseViewerFragment, viewerBlobType, viewerHref, viewerKind } from './viewer';

const origin = 'http://127.0.0.1:5173';

describe('viewer allowlist', () => {
	it('opens raster images, audio, video, plain text and PDF', () => {
		expect(viewerKind('image/png')).toBe('image');
		expect(viewerKind('application/pdf')).toBe('pdf');
		expect(viewerBlobType('Application/PDF')).toBe('application/pdf');
		expect(viewerKind('IMAGE/JPEG')).toBe('image');
		expect(viewerKind('audio/mpeg')).toBe('audio');
		expect(viewerKind('video/mp4')).toBe('video');
		expect(viewerKind('text/plain; charset=latin1')).toBe('text');
	});

	it('offers everything else as a download only', () => {
		for (const mime of [
			'image/svg+xml',
			'text/html',
			'application/xhtml+xml',
			'text/xml',
			'application/x-pdf',
			'application/javascript',
			'text/javascript',
			'application/octet-stream',
			'multipart/x-mixed-replace',
			'text/plain+html',
			'image/png+svg'
		]) {
			expect(viewerKind(mime), mime).toBeNull();
			expect(viewerBlobType(mime), mime).toBe('application/octet-stream');
		}
		expect(isThumbnailable('image/svg+xml')).toBe(false);
		expect(isThumbnailable('image/webp')).toBe(true);
	});

	it('gives text UTF-8 and images their own type', () => {
		expect(viewerBlobType('text/plain')).toBe('text/plain;charset=utf-8');
		expect(viewerBlobType('image/png')).toBe('image/png');
	});
});

describe('viewer fragment', () => {
	const src = `blob:${origin}/0b7f6c1e-1111-2222-3333-444455556666`;

	it('round-trips a request made by the inbox', () => {
		const href = viewerHref({ src, name: 'photo & co.png', mime: 'image/png' });
		expect(href.startsWith('/viewer#')).toBe(true);
		expect(parseViewerFragment(href.slice('/viewer'.length), origin)).toEqual({
			src,
			name: 'photo & co.png',
			mime: 'image/png',
			kind: 'image'
		});
	});

	it('refuses sources that are not blob URLs of this origin', () => {
		for (const other of [
			'https://evil.test/x.png',
			'blob:https://evil.test/abc',
			'javascript:alert(1)',
			`blob:${origin}.evil.test/abc`,
			''
		]) {
			expect(parseViewerFragment(`#${new URLSearchParams({ src: other, mime: 'image/png' })}`, origin), other).toBeNull();
		}
	});

	it('refuses types outside the allowlist even with a valid source', () => {
		expect(parseViewerFragment(`#${new URLSearchParams({ src, mime: 'text/html' })}`, origin)).toBeNull();
		expect(parseViewerFragment(`#${new URLSearchParams({ src, mime: 'image/svg+xml' })}`, origin)).toBeNull();
	});
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pdfFrameAsset, pdfFrameDocument, pdfFrameScript } from './pdf-frame';

const ORIGIN = 'https://inbox.example.com';

describe('the PDF preview frame (docs/inbox-api.md §11 "Attachments")', () => {
	it('is a sandboxed document that only the inbox frames, running its own script by its hash and pdf.js from the inbox', async () => {
		const response = pdfFrameDocument(ORIGIN);
		const html = await response.text();
		const policy = response.headers.get('content-security-policy') ?? '';
		const library = /data-library="([^"]+)"/.exec(html)?.[1];
		const worker = /data-worker="([^"]+)"/.exec(html)?.[1];
		const inline = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((match) => match[1]);
		expect([library, worker, inline.length]).toEqual(['/pdf-frame/pdf.min.mjs', '/pdf-frame/pdf.worker.min.mjs', 1]);
		expect(html.match(/<script/g)).toHaveLength(1);
		const hash = createHash('sha256').update(inline[0]).digest('base64');
		expect(policy).toBe(
			`sandbox allow-scripts; default-src 'none'; script-src 'sha256-${hash}' ${ORIGIN}${library} ${ORIGIN}${worker}; ` +
				"style-src 'unsafe-inline'; img-src blob: data:; font-src blob: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
		);
		expect(inline[0]).toContain('event.origin !== inbox');
		expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
		expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
	});

	it('serves only pdf.js’s two scripts, readable by the frame’s opaque origin and by nothing more', async () => {
		expect(pdfFrameAsset('pdf.min.mjs')).toMatch(/pdfjs-dist\/build\/pdf\.min\.mjs$/);
		expect(pdfFrameAsset('pdf.worker.min.mjs')).toMatch(/pdfjs-dist\/build\/pdf\.worker\.min\.mjs$/);
		for (const name of ['frame.js', 'pdf.mjs', 'pdf.sandbox.min.mjs', '..', ''])
			expect([name, pdfFrameAsset(name)]).toEqual([name, undefined]);
		const script = pdfFrameScript(
			new Response('export {}', { headers: { 'content-length': '9', 'content-type': 'application/octet-stream' } })
		);
		expect(Object.fromEntries(script.headers)).toEqual({
			'access-control-allow-origin': '*',
			'cache-control': 'public, max-age=31536000, immutable',
			'content-length': '9',
			'content-type': 'text/javascript; charset=utf-8'
		});
		expect(await script.text()).toBe('export {}');
	});
});

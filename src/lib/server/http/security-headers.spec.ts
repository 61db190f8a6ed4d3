import { describe, expect, it } from 'vitest';
import { baseSecurityHeaders, NOTHING_ALLOWED, withConnectSources, withSecurityHeaders } from './security-headers';

const STORAGE = ['https://files.example.com', 'http://127.0.0.1:8787'];
const PAGE_POLICY = "default-src 'self'; script-src 'self' 'sha256-abc'; connect-src 'self'; frame-ancestors 'none'";

function secured(path: string, response: Response): Headers {
	return withSecurityHeaders(response, { path, storageOrigins: STORAGE }).headers;
}

const html = (policy?: string) =>
	new Response('<!doctype html><script>document.title="x"</script>', {
		headers: { 'content-type': 'text/html', ...(policy ? { 'content-security-policy': policy } : {}) }
	});

describe('security headers (docs/inbox-api.md §1)', () => {
	it('makes every /api and /webhooks answer inert data: nothing allowed, sandboxed, not sniffed, not cached', () => {
		const answers = [
			['/api/v1/conversations/x', html()],
			['/api/v1/conversations/x', html(PAGE_POLICY)],
			['/api/nothing-here', new Response('<svg onload="alert(1)"/>', { headers: { 'content-type': 'image/svg+xml' } })],
			['/api/events', new Response('data: {}\n\n', { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })],
			['/webhooks/service', new Response('{}', { headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' } })],
			['/api', new Response('<html>')]
		] as const;
		for (const [path, response] of answers) {
			const headers = secured(path, response);
			expect([path, headers.get('content-security-policy')]).toEqual([path, "default-src 'none'; frame-ancestors 'none'; sandbox"]);
			expect(headers.get('x-content-type-options')).toBe('nosniff');
			expect(headers.get('cache-control')).toBe('no-store');
			expect(headers.get('x-frame-options')).toBe('DENY');
		}
	});

	it('copies a response whose headers cannot change (a fetched one)', async () => {
		const fetched = await fetch('data:text/html,<script>alert(1)</script>');
		expect(() => fetched.headers.set('x', 'y')).toThrow();
		const headers = secured('/api/v1/x', fetched);
		expect(headers.get('content-security-policy')).toBe(NOTHING_ALLOWED);
		const own = new Response('{}', { headers: { 'content-type': 'application/json' } });
		expect(withSecurityHeaders(own, { path: '/api/v1/x', storageOrigins: [] })).toBe(own);
	});

	it("keeps a page's policy and lets it connect to itself and the storage origins only", () => {
		const headers = secured('/inbox', html(PAGE_POLICY));
		expect(headers.get('content-security-policy')).toBe(
			"default-src 'self'; script-src 'self' 'sha256-abc'; frame-ancestors 'none'; connect-src 'self' blob: https://files.example.com http://127.0.0.1:8787"
		);
		expect(headers.get('cache-control')).toBeNull();
		expect(withConnectSources("default-src 'self'; connect-src 'self' http: https:;", [])).toBe(
			"default-src 'self'; connect-src 'self' blob:"
		);
	});

	it('gives anything else, an HTML answer without a policy too, the policy that allows nothing', () => {
		expect(
			secured('/inbox/__data.json', new Response('{}', { headers: { 'content-type': 'application/json' } })).get('content-security-policy')
		).toBe(NOTHING_ALLOWED);
		expect(secured('/login', html()).get('content-security-policy')).toBe(NOTHING_ALLOWED);
	});

	it('rewrites only the connect-src directive, of any HTML page, and leaves another answer’s own policy alone', () => {
		expect(
			withConnectSources("default-src 'self'; connect-src; report-to connect-src-reports; report-uri /csp/connect-src", [
				'https://s.example'
			])
		).toBe("default-src 'self'; report-to connect-src-reports; report-uri /csp/connect-src; connect-src 'self' blob: https://s.example");
		const page = new Response('<!doctype html>', {
			headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'self'; connect-src *" }
		});
		expect(secured('/inbox', page).get('content-security-policy')).toBe(
			"default-src 'self'; connect-src 'self' blob: https://files.example.com http://127.0.0.1:8787"
		);
		const image = new Response('', {
			headers: { 'content-type': 'image/png', 'content-security-policy': "default-src 'none'; img-src 'self'" }
		});
		expect(secured('/favicon.png', image).get('content-security-policy')).toBe("default-src 'none'; img-src 'self'");
	});

	it('keeps the policy and frame options of a sandboxed document of its own, but never on /api', () => {
		const frame =
			"sandbox allow-scripts; default-src 'none'; script-src https://inbox.example.com/pdf-frame/pdf.min.mjs; frame-ancestors 'self'";
		const document = () =>
			new Response('<!doctype html>', {
				headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': frame, 'x-frame-options': 'SAMEORIGIN' }
			});
		const headers = secured('/pdf-frame.html', document());
		expect([headers.get('content-security-policy'), headers.get('x-frame-options')]).toEqual([frame, 'SAMEORIGIN']);
		expect([headers.get('x-content-type-options'), headers.get('cross-origin-opener-policy'), headers.get('referrer-policy')]).toEqual([
			'nosniff',
			'same-origin',
			'no-referrer'
		]);
		const data = secured('/api/pdf-frame.html', document());
		expect([data.get('content-security-policy'), data.get('x-frame-options')]).toEqual([NOTHING_ALLOWED, 'DENY']);
	});

	it('knows a sandboxed policy by its sandbox directive, wherever it stands, and by nothing else', () => {
		const framing = (policy: string) =>
			secured(
				'/frame.html',
				new Response('<!doctype html>', { headers: { 'content-type': 'text/html', 'content-security-policy': policy } })
			).get('x-frame-options');
		for (const policy of ["default-src 'none';sandbox allow-scripts", "default-src 'none'; sandbox", 'sandbox;default-src *']) {
			expect([policy, framing(policy)]).toEqual([policy, null]);
		}
		for (const policy of ["default-src 'none'; report-uri /sandbox", "default-src 'none'; sandboxed", "img-src 'self' sandbox.example"]) {
			expect([policy, framing(policy)]).toEqual([policy, 'DENY']);
		}
	});

	it('sends a page without its ETag, so that no 304 made after the hooks replaces its policy in the browser’s copy', () => {
		const tagged = (policy?: string) =>
			new Response('<!doctype html>', {
				headers: { 'content-type': 'text/html', etag: '"abc"', ...(policy ? { 'content-security-policy': policy } : {}) }
			});
		expect(secured('/inbox', tagged(PAGE_POLICY)).get('etag')).toBeNull();
		expect(secured('/pdf-frame.html', tagged("sandbox allow-scripts; default-src 'none'")).get('etag')).toBeNull();
		// what gets the policy that allows nothing keeps it: a 304 carries that one too
		expect(secured('/favicon.svg', tagged()).get('etag')).toBe('"abc"');
		expect(secured('/api/v1/x', tagged(PAGE_POLICY)).get('etag')).toBe('"abc"');
	});
});

describe('the headers the Node server sets before anything answers (docs/inbox-api.md §1)', () => {
	it('gives everything the policy that allows nothing, and a module worker its own: WASM, its chunk workers, the pages’ connect sources', () => {
		const always = {
			'x-content-type-options': 'nosniff',
			'referrer-policy': 'no-referrer',
			'cross-origin-opener-policy': 'same-origin',
			'x-frame-options': 'DENY'
		};
		for (const path of [
			'/favicon.svg',
			'/_app/immutable/entry/start.js',
			'/_app/version.json',
			'/login',
			'/api/health',
			'/x/_app/immutable/workers/a.js',
			'/_app/immutable/workers/assets/libsodium-sumo-BTedpqIW.wasm'
		]) {
			expect([path, baseSecurityHeaders(path, STORAGE)]).toEqual([path, { ...always, 'content-security-policy': NOTHING_ALLOWED }]);
		}
		for (const path of ['/_app/immutable/workers/entry-r_dkWorb.js', '/_app/immutable/workers/chunk-worker-entry-DxkCHIjN.js?v=1']) {
			expect([path, baseSecurityHeaders(path, STORAGE)]).toEqual([
				path,
				{
					...always,
					'content-security-policy':
						"default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; frame-ancestors 'none'; connect-src 'self' blob: https://files.example.com http://127.0.0.1:8787"
				}
			]);
		}
	});
});

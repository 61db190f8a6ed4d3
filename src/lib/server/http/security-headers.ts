/**
 * Headers every response carries: no MIME sniffing, no referrer, no framing. HTML pages get their
 * Content-Security-Policy from `kit.csp` (svelte.config.js: no inline scripts, `'wasm-unsafe-eval'` for
 * libsodium, `worker-src 'self'`); everything else gets one that allows nothing.
 */

const ALWAYS: Record<string, string> = {
	'x-content-type-options': 'nosniff',
	'referrer-policy': 'no-referrer',
	'x-frame-options': 'DENY',
	'cross-origin-opener-policy': 'same-origin'
};

const NOTHING_ALLOWED = "default-src 'none'; frame-ancestors 'none'";

export function withSecurityHeaders(response: Response): Response {
	let target = response;
	try {
		target.headers.set('x-content-type-options', 'nosniff');
	} catch {
		// Headers of a fetched response are immutable: answer with a copy.
		target = new Response(response.body, response);
	}
	for (const [name, value] of Object.entries(ALWAYS)) target.headers.set(name, value);
	const type = target.headers.get('content-type') ?? '';
	if (!type.startsWith('text/html') && !target.headers.has('content-security-policy'))
		target.headers.set('content-security-policy', NOTHING_ALLOWED);
	return target;
}

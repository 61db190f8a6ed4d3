/**
 * Headers every response carries (docs/inbox-api.md §1): no MIME sniffing, no referrer, a browsing context
 * group of its own (`Cross-Origin-Opener-Policy`), and a Content-Security-Policy that says who may frame it.
 *
 * - `baseSecurityHeaders`: set by the Node server (node/request-listener.ts) on every response before anything answers,
 *   so that static files, `_app` assets and what SvelteKit answers before the hooks (its CSRF 403) carry
 *   them: the policy that allows nothing, but for a module worker's script, whose policy is the worker's: it runs
 *   libsodium (`'wasm-unsafe-eval'`), starts chunk workers of ours and connects where the pages connect.
 * - `withSecurityHeaders`: the hooks, on what SvelteKit answers. `/api` and `/webhooks` answers are data,
 *   never a document: whatever their type, their policy allows nothing and sandboxes the page, and nothing
 *   of them is cached. HTML pages keep the policy of `kit.csp` (svelte.config.js: script hashes,
 *   `'wasm-unsafe-eval'` for libsodium, `worker-src 'self'`), whose `connect-src 'self'` gains `blob:` and the
 *   storage origins the presigned attachment URLs point at (`STORAGE_ORIGINS`); a sandboxed document of its
 *   own (the PDF frame, pdf-frame.ts) keeps its policy and frame options; anything else gets the policy that
 *   allows nothing.
 */

const ALWAYS: Record<string, string> = {
	'x-content-type-options': 'nosniff',
	'referrer-policy': 'no-referrer',
	'cross-origin-opener-policy': 'same-origin'
};

export const NOTHING_ALLOWED = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** A module worker's policy, without its connect sources: it runs libsodium's WASM and starts chunk workers of ours. */
const WORKER_POLICY = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; frame-ancestors 'none'";

/** A worker's script (its entry or a chunk); what the workers fetch beside them (libsodium's `.wasm`) is a file like any other. */
const WORKER_SCRIPT = /^\/_app\/immutable\/workers\/[^?#]*\.js([?#]|$)/;

const DATA_PATH = /^\/(api|webhooks)(\/|$)/;

const SANDBOXED = /(^|;)\s*sandbox(\s|;|$)/;

/**
 * `connect-src` of a page's policy set to `'self'`, `blob:` (the viewer reads a decrypted PDF the inbox
 * tab made, to hand it to its sandboxed renderer; a page can only read blobs of its own origin) and the
 * storage origins.
 */
export function withConnectSources(policy: string, storageOrigins: readonly string[]): string {
	const connect = ["connect-src 'self' blob:", ...storageOrigins].join(' ');
	const directives = policy
		.split(';')
		.map((directive) => directive.trim())
		.filter((directive) => directive !== '' && !/^connect-src(\s|$)/i.test(directive));
	return [...directives, connect].join('; ');
}

/** What the Node server sets on a response before adapter-node's handler runs, by the request's path. */
export function baseSecurityHeaders(path: string, storageOrigins: readonly string[]): Record<string, string> {
	return {
		...ALWAYS,
		'x-frame-options': 'DENY',
		'content-security-policy': WORKER_SCRIPT.test(path) ? withConnectSources(WORKER_POLICY, storageOrigins) : NOTHING_ALLOWED
	};
}

export function withSecurityHeaders(response: Response, request: { path: string; storageOrigins: readonly string[] }): Response {
	let target = response;
	try {
		target.headers.set('x-content-type-options', 'nosniff');
	} catch {
		// Headers of a fetched response are immutable: answer with a copy.
		target = new Response(response.body, response);
	}
	for (const [name, value] of Object.entries(ALWAYS)) target.headers.set(name, value);
	const policy = target.headers.get('content-security-policy');
	const data = DATA_PATH.test(request.path);
	// A document with a sandboxed policy of its own (the PDF frame) has no origin, so it connects nowhere as
	// us: it keeps its policy, and says itself who may frame it.
	const sandboxed = !data && policy !== null && SANDBOXED.test(policy);
	if (data) {
		target.headers.set('content-security-policy', NOTHING_ALLOWED);
		target.headers.set('cache-control', 'no-store');
	} else if (policy === null) {
		target.headers.set('content-security-policy', NOTHING_ALLOWED);
	} else if (!sandboxed && (target.headers.get('content-type') ?? '').startsWith('text/html')) {
		target.headers.set('content-security-policy', withConnectSources(policy, request.storageOrigins));
	}
	if (!sandboxed) target.headers.set('x-frame-options', 'DENY');
	// SvelteKit answers a matching If-None-Match with a 304 it makes after the hooks, which carries the Node
	// server's base policy, and a browser takes a 304's headers into the response it kept: a page has no ETag.
	if (target.headers.get('content-security-policy') !== NOTHING_ALLOWED) target.headers.delete('etag');
	return target;
}

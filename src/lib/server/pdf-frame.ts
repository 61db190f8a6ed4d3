/**
 * The PDF preview's frame (docs/inbox-api.md §11 "Attachments"): the document at /pdf-frame.html with its
 * own script inline (src/lib/pdf-frame/frame.js), and pdf.js's two scripts, fixed files of this build,
 * under /pdf-frame/. The document's policy is an HTTP header: `sandbox allow-scripts` makes it an opaque
 * origin whoever frames or opens it, only the inbox's pages may frame it, and it runs its own script (by
 * its hash) and pdf.js's, nothing else, with no network. An opaque origin loads a module script by a CORS
 * request (`Origin: null`): pdf.js's scripts are answered with `Access-Control-Allow-Origin: *` (public
 * files, never with credentials).
 */
import { createHash } from 'node:crypto';
import frameScript from '../pdf-frame/frame.js?raw';
import pdfLibrary from 'pdfjs-dist/build/pdf.min.mjs?url';
import pdfWorker from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

const SCRIPTS = '/pdf-frame/';

/** An imported asset's file name (content-hashed in a build). */
const nameOf = (asset: string) => new URL(asset, 'file:///').pathname.split('/').pop() as string;

const ASSETS = new Map([pdfLibrary, pdfWorker].map((asset) => [nameOf(asset), asset]));

const FRAME_SCRIPT_HASH = `'sha256-${createHash('sha256').update(frameScript).digest('base64')}'`;

const pathOf = (asset: string) => SCRIPTS + nameOf(asset);

/** The imported asset served as `/pdf-frame/<name>`, if `name` is one of pdf.js's scripts. */
export function pdfFrameAsset(name: string): string | undefined {
	return ASSETS.get(name);
}

/** The frame's policy; `origin` is the inbox's, where its scripts are. */
function pdfFramePolicy(origin: string): string {
	return [
		'sandbox allow-scripts',
		"default-src 'none'",
		`script-src ${FRAME_SCRIPT_HASH} ${origin}${pathOf(pdfLibrary)} ${origin}${pathOf(pdfWorker)}`,
		"style-src 'unsafe-inline'",
		'img-src blob: data:',
		'font-src blob: data:',
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'self'"
	].join('; ');
}

const DOCUMENT = `<!doctype html>
<html lang="en">
	<head>
		<meta charset="utf-8" />
		<title>PDF preview</title>
		<style>
			body {
				margin: 0;
				padding: 12px;
				display: grid;
				gap: 12px;
				justify-items: center;
				background: #e9ebee;
				font: 14px system-ui, sans-serif;
			}
			canvas {
				max-width: 100%;
				height: auto;
				background: #fff;
				box-shadow: 0 1px 3px rgb(0 0 0 / 20%);
			}
		</style>
	</head>
	<body data-library="${pathOf(pdfLibrary)}" data-worker="${pathOf(pdfWorker)}">
		<script type="module">${frameScript}</script>
	</body>
</html>
`;

export function pdfFrameDocument(origin: string): Response {
	return new Response(DOCUMENT, {
		headers: {
			'content-type': 'text/html; charset=utf-8',
			'content-security-policy': pdfFramePolicy(origin),
			'x-frame-options': 'SAMEORIGIN',
			// names this build's scripts
			'cache-control': 'no-cache'
		}
	});
}

/** One of pdf.js's scripts, read from the build (`read` of `$app/server`). */
export function pdfFrameScript(file: Response): Response {
	const headers = new Headers({
		'content-type': 'text/javascript; charset=utf-8',
		'access-control-allow-origin': '*',
		'cache-control': 'public, max-age=31536000, immutable'
	});
	const length = file.headers.get('content-length');
	if (length !== null) headers.set('content-length', length);
	return new Response(file.body, { headers });
}

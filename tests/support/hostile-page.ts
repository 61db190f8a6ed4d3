/**
 * A web page the signed-in agent visits (docs/threat-model.md, "A web page the agent visits"), served from
 * another port of the inbox's host: another origin but the same site, so the agent's SameSite cookie goes
 * with what it frames and the inbox origin's storage is not partitioned under it (the strongest such
 * page). It frames or opens what the inbox serves and posts it a module to
 * run, as the probe against the PDF frame did (`{ pdf, library, worker }`, where `library` was imported
 * from a `blob:` URL). The module reports where it ran to the top page and leaves a mark in the
 * `localStorage` of whatever origin it runs in: a mark found in the inbox origin's storage is script of
 * this page that ran as the inbox. `/control` is a frame of this page's own origin that runs what it is
 * posted, as the old frame did: its report shows that the module and the channel work.
 */
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';

/** The `localStorage` key the module sets in the origin it runs in. */
export const MARK = 'hostile-page-ran';

/** What the module does: report to the top page, then mark the storage of its origin (an opaque origin has none). */
const MODULE = `
const ran = { origin: self.origin, href: location.href };
top.postMessage({ ran }, '*');
localStorage.setItem(${JSON.stringify(MARK)}, JSON.stringify(ran));
`;

/** The messages posted to every frame and window: the probe's, and the shapes a frame might read instead. */
function hostileMessages(module: string): unknown[] {
	const blobUrl = URL.createObjectURL(new Blob([module], { type: 'text/javascript' }));
	return [
		{ pdf: new ArrayBuffer(8), library: module, worker: module },
		{ pdf: new ArrayBuffer(8), library: module },
		{ pdf: new Uint8Array(8).buffer, library: blobUrl, worker: blobUrl },
		{ pdf: new ArrayBuffer(8), library: `data:text/javascript,${encodeURIComponent(module)}` },
		{ library: module, worker: module },
		{ pdf: new ArrayBuffer(8), script: module, module }
	];
}

/** Runs in this page's frames as the old PDF frame did: imports `library` from a blob: URL. */
function runWhatIsPosted(): void {
	addEventListener('message', (event) => {
		const { library } = event.data ?? {};
		if (typeof library === 'string') import(URL.createObjectURL(new Blob([library], { type: 'text/javascript' }))).catch(() => undefined);
	});
}

const page = (script: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A page the agent visits</title></head>
<body><script>${script}</script></body></html>`;

const TOP = `
window.ran = [];
addEventListener('message', (event) => { if (event.data && event.data.ran) window.ran.push(event.data.ran); });
const MODULE = ${JSON.stringify(MODULE)};
${hostileMessages.toString()}
/** Posts every hostile message to every frame of this page and to the windows it opened. */
window.postToAll = () => {
	const targets = [...document.querySelectorAll('iframe')].map((frame) => frame.contentWindow).concat(window.opened ?? []);
	for (const target of targets) for (const message of hostileMessages(MODULE)) target.postMessage(message, '*');
};
`;

export interface HostilePage {
	url: string;
	close(): Promise<void>;
}

export async function startHostilePage(): Promise<HostilePage> {
	const server = createServer((request, response) => {
		const body = request.url === '/control' ? page(`(${runWhatIsPosted.toString()})()`) : page(TOP);
		response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () => new Promise((resolve) => server.close(() => resolve()))
	};
}

function filesUnder(directory: string): string[] {
	return readdirSync(directory).flatMap((name) => {
		const path = join(directory, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

/**
 * What the inbox serves, one path of each kind: every page and non-API route of src/routes (parameters
 * filled with `x`), a page that does not exist, an `/api` answer, every file of the build's client
 * directory but the precompressed copies, with three of each folder of `_app/immutable/chunks` and
 * `nodes` (hundreds of the same kind), and every worker script.
 */
export function pathsTheInboxServes(root = process.cwd()): string[] {
	const routes = filesUnder(join(root, 'src', 'routes'))
		.filter((file) => /\/\+(page\.svelte|server\.ts)$/.test(file))
		.map((file) =>
			relative(join(root, 'src', 'routes'), file)
				.replace(/(^|\/)\+(page\.svelte|server\.ts)$/, '')
				.split('/')
				.filter((segment) => !/^\(.*\)$/.test(segment))
				.map((segment) => segment.replace(/\[[^\]]+\]/g, 'x'))
				.join('/')
		)
		.filter((path) => !/^(api|webhooks)(\/|$)/.test(path))
		.map((path) => `/${path}`);
	const client = join(root, 'build', 'client');
	const sampled = new Map<string, number>();
	const files = filesUnder(client)
		.filter((file) => !/\.(br|gz)$/.test(file))
		.map((file) => `/${relative(client, file)}`)
		.sort()
		.filter((path) => {
			const folder = /^\/_app\/immutable\/(chunks|nodes)\//.exec(path)?.[1];
			if (!folder) return true;
			sampled.set(folder, (sampled.get(folder) ?? 0) + 1);
			return (sampled.get(folder) ?? 0) <= 3;
		});
	return [...new Set([...routes, '/no-such-page', '/api/health', ...files])];
}

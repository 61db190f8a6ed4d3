/**
 * `npm run bench:wasm` (docs/crypto-worker.md "libsodium's WebAssembly"): how fast libsodium's WebAssembly
 * loads as libsodium-sumo carries it, inlined as base64 in its JavaScript, decoded, then compiled, and as
 * the inbox now ships it, a `.wasm` file compiled while it streams in. In Chromium, in a worker as the
 * crypto worker runs, each way `RUNS` times with the HTTP cache and the compiled-code cache out of the way
 * (a fresh URL each time): the inlined way decodes the module's own base64 text with the decoding loop
 * libsodium uses and compiles the bytes; the streamed way is `WebAssembly.compileStreaming` of the same
 * bytes fetched as `application/wasm`. Then the inbox's own worker as built in `build/client` (or in each
 * client directory of `BENCH_BUILD`, comma-separated, in turn: another build to compare with): `RUNS`
 * starts of a chunk worker, from `new Worker` to its first answer, which waits for libsodium, served over
 * HTTP from 127.0.0.1 with `no-store` on URLs it never had. It prints the p50 and p95 of each and the ratio
 * of the two ways.
 */
import { chromium } from '@playwright/test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { CHUNK_WORKER_NAME } from '../../src/lib/crypto-worker/pipeline/chunk-worker-entry';
import { CHROMIUM_PATH } from '../support/prerequisites';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const ORIGIN = 'http://wasm.bench';
const LIBSODIUM = join(process.cwd(), 'node_modules', 'libsodium-sumo', 'dist', 'modules-sumo-esm', 'libsodium-sumo.mjs');

/** The client directories of the builds whose worker starts are measured. */
const BUILDS = (process.env.BENCH_BUILD ?? join('build', 'client')).split(',').map((folder) => resolve(folder));
const WORKERS = join('_app', 'immutable', 'workers');

/** The inbox's worker script in `build`, as a path of it; its chunk workers run the same script. */
function inboxWorker(build: string): string {
	const folder = join(build, WORKERS);
	const entry = existsSync(folder) ? readdirSync(folder).find((name) => /^entry-.*\.js$/.test(name)) : undefined;
	if (!entry) throw new Error(`no worker script in ${folder}: npm run build first, or set BENCH_BUILD`);
	return `/${WORKERS}/${entry}`.replaceAll(sep, '/');
}

/**
 * Serves the builds on 127.0.0.1, `/<build>-<run>/<path in the build>` being a file of `BUILDS[build]`:
 * each cold start's own URLs, its script's and, relative to it, the `.wasm`'s, never stored; under
 * `/<build>-cached/` the same files with the cache headers of the inbox's immutable assets.
 */
async function serveBuilds(): Promise<{ origin: string; close: () => void }> {
	const server = createServer((request, response) => {
		const [, build, run, path] = /^\/(\d+)-(\d+|cached)(\/.*)$/.exec(request.url ?? '') ?? [];
		const folder = BUILDS[Number(build)];
		const file = folder && resolve(folder, `.${path}`);
		if (!file) return void response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>wasm</title>');
		if (!file.startsWith(folder + sep) || !existsSync(file) || !statSync(file).isFile()) return void response.writeHead(404).end();
		const type = file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
		const cache = run === 'cached' ? 'public,max-age=31536000,immutable' : 'no-store';
		response.writeHead(200, { 'content-type': type, 'cache-control': cache }).end(readFileSync(file));
	});
	await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
	return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** The WebAssembly module libsodium carries inlined, as the base64 text it carries it in. */
function inlinedModule(): string {
	const text = readFileSync(LIBSODIUM, 'utf8');
	// a module starts with the bytes \0asm, "AGFzbQ" in base64
	const found = /"(AGFzbQ[A-Za-z0-9+/]+={0,2})"/.exec(text);
	if (!found) throw new Error(`no inlined WebAssembly module in ${LIBSODIUM}`);
	return found[1];
}

/** The worker: answers each message with the milliseconds one way of loading took. */
const WORKER = `
const table = new Uint8Array(123);
for (let n = 25; n >= 0; --n) { table[48 + n] = 52 + n; table[65 + n] = n; table[97 + n] = 26 + n; }
table[43] = 62; table[47] = 63;
/** libsodium's own decoding loop (its Emscripten glue), over the text it inlines. */
function decode(text) {
	const padding = (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
	const bytes = new Uint8Array((text.length / 4) * 3 - padding);
	for (let c = 0, b = 0; c < text.length; c += 4, b += 3) {
		const i = table[text.charCodeAt(c + 1)], g = table[text.charCodeAt(c + 2)];
		bytes[b] = (table[text.charCodeAt(c)] << 2) | (i >> 4);
		if (b + 1 < bytes.length) bytes[b + 1] = (i << 4) | (g >> 2);
		if (b + 2 < bytes.length) bytes[b + 2] = (g << 6) | table[text.charCodeAt(c + 3)];
	}
	return bytes;
}
onmessage = async ({ data }) => {
	const started = performance.now();
	if (data.way === 'inlined') {
		// the text arrives as part of the script, as libsodium's JavaScript brings it
		const text = await (await fetch(data.url, { cache: 'no-store' })).text();
		await WebAssembly.compile(decode(text));
	} else {
		await WebAssembly.compileStreaming(fetch(data.url, { cache: 'no-store' }));
	}
	postMessage(performance.now() - started);
};
`;

function percentile(sorted: readonly number[], share: number): number {
	return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

async function main(): Promise<void> {
	const text = inlinedModule();
	const bytes = Buffer.from(text, 'base64');
	const workers = BUILDS.map(inboxWorker);
	const builds = await serveBuilds();
	console.log(
		`bench:wasm — libsodium's WebAssembly (${bytes.length} bytes, ${text.length} as base64), ${RUNS} loads each way in a worker of Chromium; load ${loadavg()
			.map((value) => value.toFixed(2))
			.join(' ')} on ${availableParallelism()} cores`
	);
	const browser = await chromium.launch({
		executablePath: CHROMIUM_PATH,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']
	});
	try {
		const page = await browser.newPage();
		// tsx names the page's functions with esbuild's `__name` helper, which the page lacks
		await page.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
		await page.route(`${ORIGIN}/**`, (route) => {
			const path = new URL(route.request().url()).pathname;
			if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>wasm</title>' });
			if (path === '/worker.js') return route.fulfill({ contentType: 'text/javascript', body: WORKER });
			if (path.startsWith('/inlined')) return route.fulfill({ contentType: 'text/plain', body: text });
			return route.fulfill({ contentType: 'application/wasm', body: bytes });
		});
		await page.goto(`${ORIGIN}/`);
		const times = await page.evaluate(async (runs) => {
			const worker = new Worker('/worker.js');
			const load = (way: string, url: string) =>
				new Promise<number>((resolve) => {
					worker.onmessage = ({ data }) => resolve(data as number);
					worker.postMessage({ way, url });
				});
			const measured: Record<'inlined' | 'streamed', number[]> = { inlined: [], streamed: [] };
			// a warm-up of each, then the two ways in turn, each on a URL it never had
			await load('inlined', '/inlined?warm');
			await load('streamed', '/sodium.wasm?warm');
			for (let run = 0; run < runs; run++) {
				measured.inlined.push(await load('inlined', `/inlined?${run}`));
				measured.streamed.push(await load('streamed', `/sodium.wasm?${run}`));
			}
			worker.terminate();
			return measured;
		}, RUNS);
		const inbox = await browser.newPage();
		await inbox.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
		await inbox.goto(`${builds.origin}/`);
		const starts = await inbox.evaluate(
			async ({ runs, scripts, name }) => {
				const start = async (url: string) => {
					const started = performance.now();
					const chunkWorker = new Worker(url, { type: 'module', name });
					await new Promise((answered, failed) => {
						chunkWorker.onmessage = answered;
						chunkWorker.onerror = (event) => failed(new Error(event.message || 'the worker failed'));
						chunkWorker.postMessage({ kind: 'status' });
					});
					chunkWorker.terminate();
					return performance.now() - started;
				};
				const measured = scripts.map(() => ({ cold: [] as number[], cached: [] as number[] }));
				// a warm-up (two for the cache), then the builds in turn: cold on URLs they never had, then cached
				for (const [build, script] of scripts.entries()) {
					await start(`/${build}-0${script}`);
					await start(`/${build}-cached${script}`);
					await start(`/${build}-cached${script}`);
				}
				for (let run = 1; run <= runs; run++) {
					for (const [build, script] of scripts.entries()) measured[build].cold.push(await start(`/${build}-${run}${script}`));
				}
				for (let run = 1; run <= runs; run++) {
					for (const [build, script] of scripts.entries()) measured[build].cached.push(await start(`/${build}-cached${script}`));
				}
				return measured;
			},
			{ runs: RUNS, scripts: workers, name: CHUNK_WORKER_NAME }
		);
		const inlined = [...times.inlined].sort((a, b) => a - b);
		const streamed = [...times.streamed].sort((a, b) => a - b);
		const line = (name: string, sorted: number[]) =>
			`  ${name.padEnd(34)} p50 ${percentile(sorted, 0.5).toFixed(2).padStart(7)} ms   p95 ${percentile(sorted, 0.95).toFixed(2).padStart(7)} ms`;
		console.log(line('inlined base64, decoded, compiled', inlined));
		console.log(line('.wasm compiled as it streams', streamed));
		const sorted = (times: number[]) => [...times].sort((a, b) => a - b);
		for (const [build, { cold, cached }] of starts.entries()) {
			const folder = relative(process.cwd(), BUILDS[build]) || '.';
			console.log(line('the inbox’s chunk worker, cold', sorted(cold)), folder);
			console.log(line('the inbox’s chunk worker, cached', sorted(cached)), folder);
		}
		console.log(
			`wasm: inlined ${percentile(inlined, 0.5).toFixed(2)} ms, streamed ${percentile(streamed, 0.5).toFixed(2)} ms (p50; streamed ${(percentile(streamed, 0.5) / percentile(inlined, 0.5)).toFixed(2)}× the inlined); the inbox’s chunk worker starts in ${starts.map(({ cold }) => percentile(sorted(cold), 0.5).toFixed(2)).join(' → ')} ms cold, ${starts.map(({ cached }) => percentile(sorted(cached), 0.5).toFixed(2)).join(' → ')} ms cached (p50)`
		);
	} finally {
		await browser.close();
		builds.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});

/**
 * `npm run bench:wasm` (docs/crypto-worker.md "libsodium's WebAssembly"): whether libsodium's WebAssembly
 * would load faster as a `.wasm` file compiled while it streams in than as it comes today, inlined as
 * base64 in libsodium's JavaScript, decoded, then compiled. In Chromium, in a worker as the crypto worker
 * runs, each way `RUNS` times with the HTTP cache and the compiled-code cache out of the way (a fresh URL
 * each time): the inlined way decodes the module's own base64 text with the decoding loop libsodium uses
 * and compiles the bytes; the streamed way is `WebAssembly.compileStreaming` of the same bytes fetched as
 * `application/wasm`. It prints the p50 and p95 of each and their ratio.
 */
import { chromium } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_PATH } from '../support/prerequisites';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const ORIGIN = 'http://wasm.bench';
const LIBSODIUM = join(process.cwd(), 'node_modules', 'libsodium-sumo', 'dist', 'modules-sumo-esm', 'libsodium-sumo.mjs');

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
		const inlined = [...times.inlined].sort((a, b) => a - b);
		const streamed = [...times.streamed].sort((a, b) => a - b);
		const line = (name: string, sorted: number[]) =>
			`  ${name.padEnd(32)} p50 ${percentile(sorted, 0.5).toFixed(2).padStart(7)} ms   p95 ${percentile(sorted, 0.95).toFixed(2).padStart(7)} ms`;
		console.log(line('inlined base64, decoded, compiled', inlined));
		console.log(line('.wasm compiled as it streams', streamed));
		console.log(
			`wasm: inlined ${percentile(inlined, 0.5).toFixed(2)} ms, streamed ${percentile(streamed, 0.5).toFixed(2)} ms (p50; streamed ${(percentile(streamed, 0.5) / percentile(inlined, 0.5)).toFixed(2)}× the inlined)`
		);
	} finally {
		await browser.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});

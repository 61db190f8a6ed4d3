/**
 * `npm run bench:browser`: in Chromium, one run measures a 25 MiB attachment fetched from a local
 * server as a plain download and through download + streamed decryption + digest in the worker, with
 * the CPU time each run takes on the whole machine (with few cores, the floor under the decryption's
 * time), the worker's decrypt throughput with 1, 2 and 4 chunk workers, the peak JS heap growth, and a
 * 1,000-envelope history page decrypted in the worker, round trip included. Prints figures, ratios and targets.
 */
import { chromium, type Page } from '@playwright/test';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { availableParallelism, cpus, loadavg } from 'node:os';
import {
	attachmentCiphertextLength,
	b64uDecode,
	buildAttachmentMeta,
	encryptAttachment,
	encryptMessage,
	initCrypto,
	sealConversationKey,
	type AttachmentMeta
} from '../../src/lib/crypto/index';
import { attachmentPattern } from '../../src/lib/conformance/runner';
import { chunkWorkerCount } from '../../src/lib/crypto-worker/pipeline/browser-workers';
import globalSetup, { listenAsTestStorage } from '../support/global-setup';
import { openHarness } from '../support/harness';
import { CHROMIUM_PATH } from '../support/prerequisites';
import { HeapProbe } from './heap';

const SIZE = 26_214_400;
const RUNS = 7;
const PACED_RUNS = 3;
const HISTORY_RUNS = 30;
const SCALING_WORKERS = [1, 2, 4];
const MiB = 1024 * 1024;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(1)} ms`;

const PACED_BYTES_PER_SECOND = 25_000_000; // 200 Mbit/s, a fast office or home line

/** Writes `body` in 64 KiB pieces no faster than `bytesPerSecond`. */
async function sendPaced(response: ServerResponse, body: Uint8Array, bytesPerSecond: number): Promise<void> {
	const started = performance.now();
	for (let offset = 0; offset < body.length; offset += 65_536) {
		const wait = started + (offset / bytesPerSecond) * 1000 - performance.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
		if (!response.write(body.subarray(offset, offset + 65_536))) await once(response, 'drain');
	}
	response.end();
}

/** `/ciphertext` as fast as loopback allows, `/paced` at 200 Mbit/s, at the origin the pages may fetch from; CORS open like the object storage. */
function serveCiphertext(body: Uint8Array): Promise<{ url: string; pacedUrl: string; close: () => Promise<void> }> {
	const server = createServer((request, response) => {
		response.setHeader('Access-Control-Allow-Origin', '*');
		if (request.url !== '/ciphertext' && request.url !== '/paced') return response.writeHead(404).end();
		response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
		if (request.url === '/ciphertext') return response.end(body);
		void sendPaced(response, body, PACED_BYTES_PER_SECOND);
	});
	return listenAsTestStorage(server).then((origin) => ({
		url: `${origin}/ciphertext`,
		pacedUrl: `${origin}/paced`,
		close: () => new Promise((done) => server.close(() => done()))
	}));
}

/** CPU time the whole machine spent so far (every process, every core), in ms. */
const machineCpuMs = () => cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0);

/** Runs `work`, returning its result and the CPU time the machine spent meanwhile (browser, server and all). */
async function withCpu<T>(work: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
	const before = machineCpuMs();
	const result = await work();
	return { result, cpuMs: machineCpuMs() - before };
}

/**
 * Medians of a plain download and of download + streamed decryption, alternated, after one warm-up,
 * with the machine's CPU time per run of each (on a machine with few cores, the bound on (b)).
 */
async function downloadVersusDecrypt(page: Page, url: string, meta: AttachmentMeta, runs: number) {
	const downloads: number[] = [];
	const decryptions: number[] = [];
	const cpu = { a: 0, b: 0 };
	for (let run = 0; run <= runs; run++) {
		const download = await withCpu(() => page.evaluate((address) => window.cryptoHarness.download(address), url));
		const decryption = await withCpu(() =>
			page.evaluate(([address, m]) => window.cryptoHarness.decryptFromUrl(address, m, { digest: false }), [url, meta] as const)
		);
		if (!decryption.result.ok) throw new Error(`decryption failed: ${decryption.result.message}`);
		if (run === 0) continue;
		downloads.push(download.result.milliseconds);
		decryptions.push(decryption.result.milliseconds);
		cpu.a += download.cpuMs / runs;
		cpu.b += decryption.cpuMs / runs;
	}
	return { a: median(downloads), b: median(decryptions), cpu };
}

/** A history page of 1,000 envelopes (both senders, 20 to 600 characters) for a fresh agent of the page. */
async function historyFixture(page: Page) {
	const agent = await page.evaluate(() => window.cryptoHarness.client.createAgentKey('benchmark passphrase'));
	const conversationId = 'conv_benchHistory01';
	const conversationKey = crypto.getRandomValues(new Uint8Array(32));
	const wrap = sealConversationKey({ conversationKey, conversationId, keyVersion: 1, recipientPublicKey: b64uDecode(agent.publicKey) });
	await page.evaluate(([handle, id, w]) => window.cryptoHarness.client.openConversationKey(handle, id, w), [
		agent.handle,
		conversationId,
		wrap
	] as const);
	const items = Array.from({ length: 1000 }, (_, i) => {
		const senderType = i % 3 === 0 ? ('company' as const) : ('user' as const);
		const text = `Message ${i}: ${'lorem ipsum dolor sit amet '.repeat(1 + (i % 22))}`.slice(0, 20 + ((i * 37) % 580));
		const encryption = encryptMessage({ conversationKey, conversationId, senderType, clientMessageId: `msg_${i}`, keyVersion: 1, text });
		return { encryption, senderType };
	});
	return { conversationId, items };
}

/** The median over `RUNS` decryptions of the in-memory ciphertext, after one warm-up, by the page's worker or one of `chunkWorkers`. */
async function inMemoryMedian(page: Page, meta: AttachmentMeta, chunkWorkers?: number): Promise<number> {
	const samples: number[] = [];
	for (let run = 0; run <= RUNS; run++) {
		const { milliseconds } = await page.evaluate(([m, count]) => window.cryptoHarness.decryptFromMemory(m, count), [
			meta,
			chunkWorkers
		] as const);
		if (run > 0) samples.push(milliseconds);
	}
	return median(samples);
}

/** The history page decrypted in the worker, round trip included, and its items sent over and refused (the transport alone); 3 warm-up runs each. */
async function historyRoundTrips(page: Page) {
	const history = await historyFixture(page);
	const timed = await page.evaluate(([id, items, runs]) => window.cryptoHarness.timeHistory(id, items, runs), [
		history.conversationId,
		history.items,
		HISTORY_RUNS + 3
	] as const);
	if (timed.failures) throw new Error(`${timed.failures} history items failed to decrypt`);
	const transportOnly = await page.evaluate(([items, runs]) => window.cryptoHarness.timeTransportOnly(items, runs), [
		history.items,
		HISTORY_RUNS + 3
	] as const);
	return { timings: timed.timings.slice(3), transportOnly: transportOnly.slice(3) };
}

interface Figures {
	chromium: string;
	cores: number;
	loopback: Awaited<ReturnType<typeof downloadVersusDecrypt>>;
	paced: Awaited<ReturnType<typeof downloadVersusDecrypt>>;
	/** Median ms per file, by the page's worker. */
	inMemory: number;
	scaling: Array<{ workers: number; milliseconds: number }>;
	peakGrowth: number;
	history: Awaited<ReturnType<typeof historyRoundTrips>>;
}

function report({ chromium, cores, loopback, paced, inMemory, scaling, peakGrowth, history }: Figures): void {
	const ciphertextBytes = attachmentCiphertextLength(SIZE);
	const throughput = ciphertextBytes / MiB / (inMemory / 1000);
	const heapRatio = peakGrowth / SIZE;
	const historyMedian = median(history.timings);
	const rate = (milliseconds: number) => `${(ciphertextBytes / MiB / (milliseconds / 1000)).toFixed(0)} MiB/s`;
	const line = (label: string, value: string, target?: { text: string; met: boolean }) =>
		console.log(`${label.padEnd(54)}${value}${target ? `   target ${target.text}: ${target.met ? 'met' : 'MISSED'}` : ''}`);
	console.log(
		`\nBrowser benchmark: Chromium ${chromium}, ${cores} cores (navigator.hardwareConcurrency), 25 MiB attachment (${SIZE} bytes plaintext, ${ciphertextBytes} bytes ciphertext)\n`
	);
	for (const [title, figures] of [
		[`local server at loopback speed, median of ${RUNS} runs`, loopback],
		[`local server paced at 200 Mbit/s, median of ${PACED_RUNS} runs`, paced]
	] as const) {
		console.log(title);
		line('  (a) plain download', `${ms(figures.a)}   (${rate(figures.a)})`);
		line('  (b) download + streamed decrypt + digest (worker)', `${ms(figures.b)}   (${rate(figures.b)})`);
		line('      ratio b/a', (figures.b / figures.a).toFixed(2), { text: '<= 1.5', met: figures.b / figures.a <= 1.5 });
		const floor = figures.cpu.b / availableParallelism();
		line(
			'  CPU time per run, all processes: (a), (b)',
			`${ms(figures.cpu.a)}, ${ms(figures.cpu.b)}: (b) takes >= ${ms(floor)} on ${availableParallelism()} cores = ${(floor / figures.a).toFixed(2)}x (a)`
		);
	}
	line(
		`worker throughput, in memory (default: ${chunkWorkerCount(cores)} chunk wkr)`,
		`${throughput.toFixed(0)} MiB/s   (${ms(inMemory)} per file)`
	);
	for (const { workers, milliseconds } of scaling) {
		line(`  with ${workers} chunk worker${workers === 1 ? '' : 's'}`, `${rate(milliseconds)}   (${ms(milliseconds)} per file)`);
	}
	line('peak JS heap growth during (b), page + worker', `${(peakGrowth / MiB).toFixed(1)} MiB = ${heapRatio.toFixed(2)}x the file`, {
		text: '<= 1.2x',
		met: heapRatio <= 1.2
	});
	line(
		'1,000-envelope history page, worker round trip',
		`median ${ms(historyMedian)}, min ${ms(Math.min(...history.timings))} over ${HISTORY_RUNS} runs`,
		{ text: '<= 20 ms', met: historyMedian <= 20 }
	);
	line('  of which the items going over and a refusal back', `median ${ms(median(history.transportOnly))} (no decryption)`);
	const load = loadavg().map((value) => value.toFixed(2));
	console.log(`\nload average at the end: ${load.join(' ')} on ${availableParallelism()} cores (shared machines make these figures noisy)`);
}

async function main(): Promise<void> {
	await initCrypto();
	const attachmentId = 'att_browserBench01';
	const encryption = encryptAttachment(attachmentPattern(SIZE), { attachmentId });
	const meta: AttachmentMeta = buildAttachmentMeta({
		attachmentId,
		name: 'bench.bin',
		mime: 'application/octet-stream',
		size: SIZE,
		encryption
	});

	const stopStack = await globalSetup();
	const storage = await serveCiphertext(encryption.ciphertext);
	const browser = await chromium.launch({
		executablePath: CHROMIUM_PATH,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']
	});
	try {
		const page = await browser.newPage();
		await openHarness(page);

		const check = await page.evaluate(([url, m]) => window.cryptoHarness.decryptFromUrl(url, m), [storage.url, meta] as const);
		if (!check.ok || check.size !== SIZE) throw new Error(`the streamed decryption does not work: ${JSON.stringify(check).slice(0, 300)}`);

		const loopback = await downloadVersusDecrypt(page, storage.url, meta, RUNS);
		const paced = await downloadVersusDecrypt(page, storage.pacedUrl, meta, PACED_RUNS);

		await page.evaluate((url) => window.cryptoHarness.fetchIntoMemory(url), storage.url);
		const inMemory = await inMemoryMedian(page, meta);

		const probe = await HeapProbe.attach(browser, page.url());
		const { peakGrowth } = await probe.peakGrowthDuring(() =>
			page.evaluate(([url, m]) => window.cryptoHarness.decryptFromUrl(url, m, { digest: false }), [storage.url, meta] as const)
		);
		await probe.detach();

		// After the heap probe: the extra workers started here must not be among the targets it measures.
		const scaling: Array<{ workers: number; milliseconds: number }> = [];
		for (const workers of SCALING_WORKERS) scaling.push({ workers, milliseconds: await inMemoryMedian(page, meta, workers) });
		await page.evaluate(() => window.cryptoHarness.stopScalingWorkers());
		const cores = await page.evaluate(() => navigator.hardwareConcurrency);

		const history = await historyRoundTrips(page);
		report({ chromium: browser.version(), cores, loopback, paced, inMemory, scaling, peakGrowth, history });
	} finally {
		await browser.close();
		await storage.close();
		await stopStack();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

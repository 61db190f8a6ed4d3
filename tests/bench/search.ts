/**
 * `npm run bench:search`: the agent's search index on 100,000 messages (docs/search.md), in one run,
 * on the same generated support conversations (a Zipf-distributed vocabulary, 4 to 40 words a
 * message, 1,000 conversations): for the inbox's index (FlexSearch's `Index`, the messages kept beside
 * it for snippets, src/lib/search/message-index.ts) and for MiniSearch (texts stored in it, prefix on
 * the last word, one typo forgiven in long words), the candidate it was compared with: build time, heap
 * growth, query time p50/p95 over 300 one- and two-word queries with prefixes and serialized size; for
 * the inbox's index also the size at rest (sealed with AES-256-GCM under a device key, raw bytes, as stored) and the time
 * to open it again after an unlock. The reference is a linear scan of the texts, in the same run.
 */
import MiniSearch from 'minisearch';
import { generateDeviceKey, openBytesForDevice, sealBytesForDevice } from '../../src/lib/keystore/device-key';
import { SEARCH_INDEX_CONTEXT } from '../../src/lib/keystore/search-index';
import { MessageIndex, type IndexedMessage } from '../../src/lib/search/message-index';
import { percentile } from './steady-load';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
const QUERIES = 300;
const CONVERSATIONS = 1_000;

/** A small deterministic generator, so every run searches the same texts. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const COMMON = `the a to and is my i you it for of in on we your this that with have be order not can please
thanks hello hi was are will at from but as so if me our just get do there when no yes help here now`.split(/\s+/);
const SUPPORT = `lamp parcel delivery refund invoice account password shipping tracking order broken replace return
courier warehouse payment card charge receipt subscription cancel upgrade discount coupon address phone
email screen battery charger cable manual warranty repair exchange size colour stock package label
schedule appointment technician install setup login error crash update version app website checkout`.split(/\s+/);

function vocabulary(next: () => number): string[] {
	const syllables = ['ka', 'lo', 'mi', 'ter', 'sun', 'va', 're', 'do', 'pli', 'quo', 'ben', 'sta', 'ri', 'gu', 'fen'];
	const words = new Set([...COMMON, ...SUPPORT]);
	while (words.size < 20_000) {
		let word = '';
		for (let n = 2 + Math.floor(next() * 3); n > 0; n--) word += syllables[Math.floor(next() * syllables.length)];
		words.add(word);
	}
	return [...words];
}

/** Zipf-like: the k-th word is drawn with probability ∝ 1 / (k + 1). */
function zipfPicker(words: readonly string[], next: () => number): () => string {
	const weights = words.map((_, k) => 1 / (k + 1));
	const total = weights.reduce((sum, weight) => sum + weight, 0);
	const cumulative: number[] = [];
	let sum = 0;
	for (const weight of weights) cumulative.push((sum += weight / total));
	return () => {
		const x = next();
		let low = 0;
		let high = cumulative.length - 1;
		while (low < high) {
			const middle = (low + high) >> 1;
			if (cumulative[middle] < x) low = middle + 1;
			else high = middle;
		}
		return words[low];
	};
}

function generate(): { messages: IndexedMessage[]; queries: string[] } {
	const next = random(20261126);
	const words = vocabulary(next);
	const pick = zipfPicker(words, next);
	const start = Date.parse('2026-01-01T00:00:00Z');
	const messages = Array.from({ length: MESSAGES }, (_, n): IndexedMessage => {
		const length = 4 + Math.floor(next() * 37);
		const text = Array.from({ length }, pick).join(' ');
		return {
			messageId: `msg_bench${n.toString(36).padStart(6, '0')}`,
			conversationId: `conv_bench${(n % CONVERSATIONS).toString(36).padStart(4, '0')}`,
			createdAt: new Date(start + n * 60_000).toISOString(),
			senderType: n % 2 ? 'company' : 'user',
			text: `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
		};
	});
	const queries = Array.from({ length: QUERIES }, (_, n) => {
		const first = SUPPORT[Math.floor(next() * SUPPORT.length)];
		if (n % 3 === 0) return first.slice(0, 3 + (n % 3)); // a prefix, as typed
		if (n % 3 === 1) return `${first} ${pick()}`;
		return words[100 + Math.floor(next() * 5_000)]; // a rarer word
	});
	return { messages, queries };
}

function heapMiB(): number {
	globalThis.gc?.();
	return process.memoryUsage().heapUsed / 1024 / 1024;
}

function timed<T>(run: () => T): { value: T; ms: number } {
	const started = performance.now();
	const value = run();
	return { value, ms: performance.now() - started };
}

function queryTimes(queries: readonly string[], search: (query: string) => unknown): { p50: number; p95: number } {
	const times = queries.map((query) => timed(() => search(query)).ms).sort((a, b) => a - b);
	return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<void> {
	if (!globalThis.gc) throw new Error('run with --expose-gc (npm run bench:search does)');
	const { messages, queries } = generate();
	const textBytes = messages.reduce((sum, message) => sum + Buffer.byteLength(message.text), 0);
	console.log(
		`${MESSAGES.toLocaleString('en-US')} messages in ${CONVERSATIONS} conversations, ${mib(textBytes)} of text; ${QUERIES} queries`
	);

	// reference: a linear scan of the texts, lowercased once
	const lowered = messages.map((message) => message.text.toLowerCase());
	const scan = queryTimes(queries, (query) => {
		const terms = query.toLowerCase().split(/\s+/);
		const found: number[] = [];
		for (let i = 0; i < lowered.length && found.length < 50; i++) if (terms.every((term) => lowered[i].includes(term))) found.push(i);
		return found;
	});
	console.log(`linear scan (reference): query p50 ${ms(scan.p50)}, p95 ${ms(scan.p95)}`);

	const beforeUsed = heapMiB();
	const used = timed(() => {
		const index = MessageIndex.empty();
		for (let i = 0; i < messages.length; i += 200) index.add(messages.slice(i, i + 200)); // pages, as the history pass adds them
		return index;
	});
	const usedHeap = heapMiB() - beforeUsed;
	const usedQueries = queryTimes(queries, (query) => used.value.search(query, 50));
	const serialized = timed(() => used.value.serialize());
	const key = await generateDeviceKey();
	const sealStarted = performance.now();
	const sealed = await sealBytesForDevice(key, new TextEncoder().encode(serialized.value), SEARCH_INDEX_CONTEXT);
	const sealMs = performance.now() - sealStarted;
	const openStarted = performance.now();
	const opened = new TextDecoder().decode(await openBytesForDevice(key, sealed, SEARCH_INDEX_CONTEXT));
	const restored = MessageIndex.restore(opened);
	const openMs = performance.now() - openStarted;
	if (restored.search(queries[1]).length !== used.value.search(queries[1]).length)
		throw new Error('the restored index answers differently');
	console.log(
		`FlexSearch (used): build ${ms(used.ms)}, heap +${usedHeap.toFixed(0)} MiB with the texts, query p50 ${ms(usedQueries.p50)}, ` +
			`p95 ${ms(usedQueries.p95)}, serialized ${mib(Buffer.byteLength(serialized.value))} in ${ms(serialized.ms)}, ` +
			`at rest ${mib(sealed.ciphertext.byteLength)} (sealed in ${ms(sealMs)}), opened again in ${ms(openMs)}`
	);

	const beforeMini = heapMiB();
	const mini = timed(() => {
		const index = new MiniSearch<IndexedMessage>({
			idField: 'messageId',
			fields: ['text'],
			storeFields: ['conversationId', 'createdAt', 'senderType', 'text'],
			searchOptions: {
				prefix: (_term: string, index: number, terms: string[]) => index === terms.length - 1,
				fuzzy: (term: string) => (term.length >= 5 ? 0.2 : false),
				maxFuzzy: 1,
				combineWith: 'AND'
			}
		});
		for (let i = 0; i < messages.length; i += 200) index.addAll(messages.slice(i, i + 200));
		return index;
	});
	const miniHeap = heapMiB() - beforeMini;
	const miniQueries = queryTimes(queries, (query) => mini.value.search(query).slice(0, 50));
	const miniSerialized = timed(() => JSON.stringify(mini.value));
	console.log(
		`MiniSearch (compared): build ${ms(mini.ms)}, heap +${miniHeap.toFixed(0)} MiB with the texts, query p50 ${ms(miniQueries.p50)}, ` +
			`p95 ${ms(miniQueries.p95)}, serialized ${mib(Buffer.byteLength(miniSerialized.value))} in ${ms(miniSerialized.ms)}`
	);
	console.log(`search query p95: ${ms(usedQueries.p95)} (goal < 50 ms); ${(usedQueries.p95 / scan.p95).toFixed(3)}× the linear scan`);
}

await main();

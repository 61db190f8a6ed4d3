/**
 * `npm run bench:search`: the agent's search index on 1,000,000 messages (docs/search.md, "Measured";
 * `BENCH_MESSAGES` for another size, `BENCH_CANDIDATES` for some of the candidates), in one run, on
 * generated support conversations (a Zipf-distributed vocabulary, 4 to 40 words a message, 1,000
 * conversations). For each candidate: build time, heap of the index (gc, then heapUsed plus array
 * buffers, before and after; the texts are shared with the input), query p50/p95 over 300 one- and
 * two-word queries with prefixes, size at rest (serialized, sealed with AES-256-GCM under a device key
 * as stored), time to open it again and its heap then (its own texts), and the update per new message
 * (1,000 added one at a time). The reference is a linear scan of the texts, in the same run.
 * Candidates: the inbox's index (src/lib/search/message-index.ts), and FlexSearch's `Index` with the
 * messages beside it as the inbox used it before, as configured then and tuned.
 */
import FlexSearch from 'flexsearch';
import os from 'node:os';
import { generateDeviceKey, openBytesForDevice, sealBytesForDevice } from '../../src/lib/keystore/device-key';
import { SEARCH_INDEX_CONTEXT } from '../../src/lib/keystore/search-index';
import { MessageIndex, snippetOf, wordMatcher, type IndexedMessage } from '../../src/lib/search/message-index';
import { percentile } from './steady-load';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const QUERIES = 300;
const CONVERSATIONS = 1_000;
const UPDATES = 1_000;
const PAGE = 200;

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

function generate(): { messages: IndexedMessage[]; updates: IndexedMessage[]; queries: string[] } {
	const next = random(20261126);
	const words = vocabulary(next);
	const pick = zipfPicker(words, next);
	const start = Date.parse('2026-01-01T00:00:00Z');
	const all = Array.from({ length: MESSAGES + UPDATES }, (_, n): IndexedMessage => {
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
	return { messages: all.slice(0, MESSAGES), updates: all.slice(MESSAGES), queries };
}

/** Heap and array buffers in use, after a collection and a pause for the array buffers it freed to be swept. */
async function heapBytes(): Promise<number> {
	globalThis.gc?.();
	await new Promise((resolve) => setTimeout(resolve, 200));
	globalThis.gc?.();
	const { heapUsed, arrayBuffers } = process.memoryUsage();
	return heapUsed + arrayBuffers;
}

function timed<T>(run: () => T): { value: T; ms: number } {
	const started = performance.now();
	const value = run();
	return { value, ms: performance.now() - started };
}

function times(inputs: readonly unknown[], run: (input: never) => unknown): { p50: number; p95: number; mean: number } {
	const measured = inputs.map((input) => timed(() => run(input as never)).ms).sort((a, b) => a - b);
	return { p50: percentile(measured, 0.5), p95: percentile(measured, 0.95), mean: measured.reduce((a, b) => a + b, 0) / measured.length };
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const load = () =>
	os
		.loadavg()
		.map((value) => value.toFixed(2))
		.join(' ');

/** What the bench asks of a candidate: build, search, add one message, and its form at rest. */
interface Built {
	search(query: string): unknown;
	add(message: IndexedMessage): void;
	serialize(): Uint8Array;
}

interface Candidate {
	name: string;
	build(messages: readonly IndexedMessage[]): Built;
	restore(bytes: Uint8Array): Built;
}

const inboxIndex: Candidate = {
	name: 'inbox index (sorted terms, typed-array postings)',
	build(messages) {
		const index = MessageIndex.empty();
		for (let i = 0; i < messages.length; i += PAGE) index.add(messages.slice(i, i + PAGE)); // pages, as the history pass adds them
		return inboxBuilt(index);
	},
	restore: (bytes) => inboxBuilt(MessageIndex.restore(bytes))
};

function inboxBuilt(index: MessageIndex): Built {
	return { search: (query) => index.search(query, 50), add: (message) => index.add([message]), serialize: () => index.serialize() };
}

type FlexOptions = ConstructorParameters<typeof FlexSearch.Index>[0];
type Row = [id: number, message: IndexedMessage];

/** FlexSearch's `Index` and the messages beside it for snippets: the inbox's index before this one. */
function flexSearch(name: string, options: FlexOptions): Candidate {
	const built = (flex: InstanceType<typeof FlexSearch.Index>, messages: Map<number, IndexedMessage>): Built => ({
		search(query) {
			const matches = wordMatcher(query);
			return (flex.search(query, { limit: 1_000 }) as number[])
				.flatMap((id) => messages.get(id) ?? [])
				.sort((a, b) => b.createdAt.localeCompare(a.createdAt))
				.slice(0, 50)
				.map((message) => snippetOf(message.text, matches));
		},
		add(message) {
			flex.add(messages.size + 1, message.text);
			messages.set(messages.size + 1, { ...message });
		},
		serialize() {
			const chunks: Record<string, string> = {};
			void flex.export((key: string, data: string) => (chunks[key] = data));
			return new TextEncoder().encode(JSON.stringify({ chunks, rows: [...messages] }));
		}
	});
	return {
		name,
		build(messages) {
			const flex = new FlexSearch.Index(options);
			const kept = new Map<number, IndexedMessage>();
			messages.forEach((message, n) => {
				flex.add(n + 1, message.text);
				kept.set(n + 1, { ...message });
			});
			return built(flex, kept);
		},
		restore(bytes) {
			const { chunks, rows } = JSON.parse(new TextDecoder().decode(bytes)) as { chunks: Record<string, string>; rows: Row[] };
			const flex = new FlexSearch.Index(options);
			for (const [key, data] of Object.entries(chunks)) flex.import(key, data);
			return built(flex, new Map(rows));
		}
	};
}

const CANDIDATES: Record<string, Candidate> = {
	inbox: inboxIndex,
	flexsearch: flexSearch('FlexSearch as used before (tokenize forward)', { tokenize: 'forward' }),
	'flexsearch-tuned': flexSearch('FlexSearch tuned (forward, resolution 1, fastupdate off, no cache)', {
		tokenize: 'forward',
		resolution: 1,
		fastupdate: false,
		cache: false
	})
};

interface Measured {
	p95: number;
	heap: number;
	atRest: number | null;
	restoredHeap: number | null;
	update: number;
}

/** Seals the serialized form as the key store does, opens it again and restores it; null when there is none. */
async function atRest(candidate: Candidate, built: Built): Promise<{ sealedBytes: number; restoredHeap: number; line: string } | null> {
	let serialized: { value: Uint8Array; ms: number };
	try {
		serialized = timed(() => built.serialize());
	} catch (error) {
		console.log(`  at rest: none (${(error as Error).message})`);
		return null;
	}
	const key = await generateDeviceKey();
	const sealed = await sealBytesForDevice(key, serialized.value, SEARCH_INDEX_CONTEXT);
	const sealedBytes = sealed.iv.byteLength + sealed.ciphertext.byteLength;
	const before = await heapBytes();
	const openStarted = performance.now();
	const restored = candidate.restore(await openBytesForDevice(key, sealed, SEARCH_INDEX_CONTEXT));
	const openMs = performance.now() - openStarted;
	const restoredHeap = (await heapBytes()) - before;
	if (JSON.stringify(restored.search('lamp')) !== JSON.stringify(built.search('lamp')))
		throw new Error(`${candidate.name}: restored, it answers differently`);
	const line = `serialized ${mib(serialized.value.byteLength)} in ${ms(serialized.ms)}, sealed at rest ${mib(sealedBytes)}; opened again in ${ms(openMs)}, heap then +${mib(restoredHeap)} with its own texts`;
	return { sealedBytes, restoredHeap, line };
}

async function measure(candidate: Candidate, data: ReturnType<typeof generate>, textBytes: number, scanP95: number): Promise<Measured> {
	console.log(`${candidate.name} (load ${load()})`);
	const before = await heapBytes();
	const build = timed(() => candidate.build(data.messages));
	const heap = (await heapBytes()) - before;
	const queries = times(data.queries, (query: string) => build.value.search(query));
	const stored = await atRest(candidate, build.value);
	const update = times(data.updates, (message: IndexedMessage) => build.value.add(message));
	console.log(`  build ${ms(build.ms)}, heap +${mib(heap)} (${(heap / textBytes).toFixed(2)}× text, texts shared with the input)`);
	console.log(`  query p50 ${ms(queries.p50)}, p95 ${ms(queries.p95)}: ${(scanP95 / queries.p95).toFixed(1)}× faster than the scan at p95`);
	if (stored) console.log(`  ${stored.line}: at rest ${(stored.sealedBytes / textBytes).toFixed(2)}× text`);
	console.log(`  update per new message: mean ${ms(update.mean)}, p95 ${ms(update.p95)} (${UPDATES} added one at a time)`);
	return { p95: queries.p95, heap, atRest: stored?.sealedBytes ?? null, restoredHeap: stored?.restoredHeap ?? null, update: update.p95 };
}

async function main(): Promise<void> {
	if (!globalThis.gc) throw new Error('run with --expose-gc (npm run bench:search does)');
	const chosen = (process.env.BENCH_CANDIDATES ?? Object.keys(CANDIDATES).join(',')).split(',').map((name) => {
		if (!(name in CANDIDATES)) throw new Error(`no candidate ${name}; there are ${Object.keys(CANDIDATES).join(', ')}`);
		return CANDIDATES[name];
	});
	const data = generate();
	const textBytes = data.messages.reduce((sum, message) => sum + Buffer.byteLength(message.text), 0);
	console.log(
		`${MESSAGES.toLocaleString('en-US')} messages in ${CONVERSATIONS} conversations, ${mib(textBytes)} of text; ${QUERIES} queries; ${os.cpus().length} cores, load average ${load()}`
	);

	// reference: a linear scan of the texts, lowercased once
	const lowered = data.messages.map((message) => message.text.toLowerCase());
	const scan = times(data.queries, (query: string) => {
		const terms = query.toLowerCase().split(/\s+/);
		const found: number[] = [];
		for (let i = 0; i < lowered.length && found.length < 50; i++) if (terms.every((term) => lowered[i].includes(term))) found.push(i);
		return found;
	});
	console.log(`linear scan (reference): query p50 ${ms(scan.p50)}, p95 ${ms(scan.p95)}`);

	let inbox: Measured | undefined;
	for (const candidate of chosen) {
		const measured = await measure(candidate, data, textBytes, scan.p95);
		if (candidate === inboxIndex) inbox = measured;
	}
	if (inbox) {
		const ratio = (bytes: number | null) => (bytes === null ? 'none' : `${(bytes / textBytes).toFixed(2)}×`);
		console.log(
			`search at ${MESSAGES}: query p95 ${ms(inbox.p95)} (${(inbox.p95 / scan.p95).toFixed(3)}× the scan), heap ${ratio(inbox.heap)} text (${ratio(inbox.restoredHeap)} reopened, texts included), at rest ${ratio(inbox.atRest)} text, update ${ms(inbox.update)} (load ${load()})`
		);
	}
}

await main();

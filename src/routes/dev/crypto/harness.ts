/**
 * Test-only helpers of the crypto harness page, reached by Playwright as
 * `window.cryptoHarness`: the conformance runner against the worker, outcomes with error codes,
 * streamed downloads with frame counts, and a dump of every IndexedDB record.
 */
import { b64uDecode, b64uEncode, hexEncode } from '$lib/crypto/encoding';
import { ContractError } from '$lib/errors';
import type { ConformanceImplementation } from '$lib/conformance/implementation';
import { runConformance } from '$lib/conformance/runner';
import { createConformanceWorker } from '$lib/conformance/worker-client';
import { createCryptoWorker, type CryptoWorkerClient, type DecryptedAttachment, type HistoryItem } from '$lib/crypto-worker/client';
import { requestPersistentStorage } from '$lib/keystore/persistence';

export type Attempt<T> = { ok: true; value: T } | { ok: false; name: string; code?: string; message: string; contractError: boolean };

async function attempt<T>(operation: () => Promise<T>): Promise<Attempt<T>> {
	try {
		return { ok: true, value: await operation() };
	} catch (error) {
		const failure = error as { name?: string; code?: string; message?: string };
		return {
			ok: false,
			name: failure?.name ?? 'Error',
			code: failure?.code,
			message: failure?.message ?? String(error),
			contractError: error instanceof ContractError
		};
	}
}

async function sha256Hex(data: ArrayBuffer): Promise<string> {
	return hexEncode(new Uint8Array(await crypto.subtle.digest('SHA-256', data)));
}

/** IndexedDB values made JSON-safe: bytes as hex, CryptoKeys described by what they allow. */
function plain(value: unknown): unknown {
	if (value instanceof ArrayBuffer) return { $bytes: hexEncode(new Uint8Array(value)) };
	if (ArrayBuffer.isView(value)) return { $bytes: hexEncode(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) };
	if (typeof CryptoKey !== 'undefined' && value instanceof CryptoKey) {
		return { $cryptoKey: { type: value.type, extractable: value.extractable, algorithm: value.algorithm.name, usages: value.usages } };
	}
	if (value instanceof Date) return value.toISOString();
	if (Array.isArray(value)) return value.map(plain);
	if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
	return value;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
	return new Promise((resolve, reject) => {
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
}

/** Every record of every object store of every database of this origin. */
async function dumpIndexedDb() {
	const dump: Array<{ database: string; version: number; store: string; records: unknown[] }> = [];
	for (const info of await indexedDB.databases()) {
		if (!info.name) continue;
		const database = await request(indexedDB.open(info.name));
		try {
			for (const store of Array.from(database.objectStoreNames)) {
				const records = await request(database.transaction(store).objectStore(store).getAll());
				dump.push({ database: info.name, version: database.version, store, records: records.map(plain) });
			}
		} finally {
			database.close();
		}
	}
	return dump;
}

export function createHarness(client: CryptoWorkerClient, frames: () => number) {
	// The vectors run in a worker of their own: the inbox's worker takes handles, never raw keys.
	let conformance: ConformanceImplementation | undefined;
	/**
	 * Fetches `url` and decrypts it through the streamed path, counting frames and progress. With
	 * `digest: false` the Blob is not read back (the benchmark measures memory without that copy).
	 */
	async function decryptFromUrl(url: string, meta: unknown, options: { ciphertextSize?: number; digest?: boolean } = {}) {
		const progress: Array<{ done: number; total: number; frame: number }> = [];
		const framesBefore = frames();
		const started = performance.now();
		const outcome = await attempt(async () =>
			client.decryptAttachmentStream(await fetch(url), meta, {
				ciphertextSize: options.ciphertextSize,
				onProgress: (p) => progress.push({ ...p, frame: frames() })
			})
		);
		const milliseconds = performance.now() - started;
		const framesDuring = frames() - framesBefore;
		if (!outcome.ok) return { ...outcome, progress, framesDuring, milliseconds };
		const { blob }: DecryptedAttachment = outcome.value;
		const sha256 = options.digest === false ? undefined : await sha256Hex(await blob.arrayBuffer());
		return { ok: true as const, size: blob.size, type: blob.type, sha256, progress, framesDuring, milliseconds };
	}

	let ciphertextInMemory: ArrayBuffer | undefined;
	const scalingWorkers = new Map<number, CryptoWorkerClient>();
	const workerWith = (chunkWorkers: number) => {
		let worker = scalingWorkers.get(chunkWorkers);
		if (!worker) scalingWorkers.set(chunkWorkers, (worker = createCryptoWorker({ chunkWorkers })));
		return worker;
	};

	return {
		client,
		frames,
		/** Calls a client method; the outcome tells whether a ContractError came back, and its code. */
		call: (method: keyof CryptoWorkerClient, ...args: unknown[]) =>
			attempt(async () => (client[method] as (...input: unknown[]) => Promise<unknown>).apply(client, args)),
		/** The shared conformance runner on this page against the worker (contract 9.1). */
		runVectors: (content: unknown) => runConformance('conformance.json', content, (conformance ??= createConformanceWorker())),
		decryptFromUrl,
		/** Encrypts `b64u` bytes as a File in the worker; returns the ciphertext (b64u), the meta and the progress seen. */
		async encryptBytes(bytes: string, fileName: string, type: string, details: { attachmentId: string; name?: string; mime?: string }) {
			const progress: Array<{ done: number; total: number }> = [];
			const file = new File([b64uDecode(bytes) as Uint8Array<ArrayBuffer>], fileName, { type });
			const outcome = await attempt(() => client.encryptAttachment(file, details, { onProgress: (p) => progress.push(p) }));
			if (!outcome.ok) return { ...outcome, progress };
			const { ciphertext, meta } = outcome.value;
			return {
				ok: true as const,
				isArrayBuffer: ciphertext instanceof ArrayBuffer,
				ciphertext: b64uEncode(new Uint8Array(ciphertext)),
				meta,
				progress
			};
		},
		/** Signs with a `signing.key` given as a File, as the admin page will. */
		importSigningKeyFile: (signingKey: string, signingPub: string, passphrase: string, replace = false) =>
			attempt(() =>
				client.importSigningKey({
					signingKey: new File([signingKey], 'signing.key'),
					expectedPublicKey: new File([signingPub], 'signing.pub'),
					passphrase,
					replace
				})
			),
		dumpIndexedDb,
		/** The store status seen by a second worker started for `accountId`, as the inbox starts one per account. */
		async statusForAccount(accountId: string) {
			const other = createCryptoWorker({ accountId });
			try {
				return await attempt(() => other.status());
			} finally {
				other.terminate();
			}
		},
		requestPersistentStorage: () => requestPersistentStorage(),
		/** A plain download of `url` into memory, for the benchmark's baseline. */
		async download(url: string) {
			const started = performance.now();
			const buffer = await (await fetch(url)).arrayBuffer();
			return { bytes: buffer.byteLength, milliseconds: performance.now() - started };
		},
		/** Downloads a ciphertext into page memory once, for `decryptFromMemory`. */
		async fetchIntoMemory(url: string) {
			ciphertextInMemory = await (await fetch(url)).arrayBuffer();
			return ciphertextInMemory.byteLength;
		},
		/**
		 * Decrypts the in-memory ciphertext served as a byte stream, as a fetch body is (benchmark: the
		 * worker's throughput), by this page's worker or by one of its own with `chunkWorkers` chunk workers.
		 */
		async decryptFromMemory(meta: unknown, chunkWorkers?: number) {
			const bytes = new Uint8Array(ciphertextInMemory ?? new ArrayBuffer(0));
			let offset = 0;
			const stream = new ReadableStream({
				type: 'bytes',
				pull(controller) {
					const request = controller.byobRequest!;
					const view = request.view as Uint8Array;
					const length = Math.min(view.byteLength, bytes.length - offset);
					if (length === 0) {
						controller.close();
						return request.respond(0);
					}
					view.set(bytes.subarray(offset, offset + length));
					offset += length;
					request.respond(length);
				}
			});
			const worker = chunkWorkers === undefined ? client : workerWith(chunkWorkers);
			const started = performance.now();
			const { blob } = await worker.decryptAttachmentStream(stream as ReadableStream<Uint8Array>, meta);
			return { size: blob.size, milliseconds: performance.now() - started };
		},
		/** Stops the workers `decryptFromMemory` started for other chunk worker counts. */
		stopScalingWorkers() {
			for (const worker of scalingWorkers.values()) worker.terminate();
			scalingWorkers.clear();
		},
		/** Times `runs` batch decryptions of a history page, round trip included; checks every item decrypted. */
		async timeHistory(conversationId: string, items: HistoryItem[], runs: number) {
			const timings: number[] = [];
			let failures = 0;
			for (let run = 0; run < runs; run++) {
				const started = performance.now();
				const results = await client.decryptHistory(conversationId, items);
				timings.push(performance.now() - started);
				failures += results.filter((result) => !result.ok).length;
			}
			return { timings, failures };
		},
		/** Times sending the same items to a conversation without an open key: the transport alone, refused before any decryption. */
		async timeTransportOnly(items: HistoryItem[], runs: number) {
			const timings: number[] = [];
			for (let run = 0; run < runs; run++) {
				const started = performance.now();
				const outcome = await attempt(() => client.decryptHistory('conv_transportOnly', items));
				timings.push(performance.now() - started);
				if (outcome.ok || outcome.code !== 'CONVERSATION_KEY_NOT_OPEN') throw new Error('the transport-only batch should be refused');
			}
			return timings;
		}
	};
}

export type CryptoHarness = ReturnType<typeof createHarness>;

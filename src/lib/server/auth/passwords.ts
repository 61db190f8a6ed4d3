/**
 * Password hashes with Argon2id through libsodium's `crypto_pwhash_str` (interactive limits: 2 passes,
 * 64 MiB), computed in a worker thread so that a login never stalls webhook acknowledgements.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Runs in the worker: libsodium (the same package as the crypto core) loaded by its resolved path. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const sodium = require(workerData.sodiumPath);
sodium.ready.then(() => {
	parentPort.on('message', ({ id, op, password, hash }) => {
		try {
			const result = op === 'hash'
				? sodium.crypto_pwhash_str(password, sodium.crypto_pwhash_OPSLIMIT_INTERACTIVE, sodium.crypto_pwhash_MEMLIMIT_INTERACTIVE)
				: sodium.crypto_pwhash_str_verify(hash, password);
			parentPort.postMessage({ id, result });
		} catch (error) {
			parentPort.postMessage({ id, error: String((error && error.message) || error) });
		}
	});
});
`;

type Pending = { resolve: (value: string | boolean) => void; reject: (error: Error) => void };

export class PasswordHasher {
	private worker: Worker | undefined;
	private readonly pending = new Map<number, Pending>();
	private nextId = 1;
	/** A real hash to verify against when the username is unknown, so timing does not tell. */
	private dummyHash: Promise<string> | undefined;

	private start(): Worker {
		if (this.worker) return this.worker;
		const sodiumPath = createRequire(import.meta.url).resolve('libsodium-wrappers-sumo');
		const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sodiumPath } });
		worker.unref();
		worker.on('message', ({ id, result, error }: { id: number; result?: string | boolean; error?: string }) => {
			const waiting = this.pending.get(id);
			this.pending.delete(id);
			if (this.pending.size === 0) worker.unref();
			if (error !== undefined) waiting?.reject(new Error(`password hashing failed: ${error}`));
			else waiting?.resolve(result as string | boolean);
		});
		worker.on('error', (error) => this.failAll(error));
		worker.on('exit', () => {
			this.worker = undefined;
			this.failAll(new Error('the password hashing worker stopped'));
		});
		this.worker = worker;
		return worker;
	}

	private failAll(error: Error): void {
		for (const waiting of this.pending.values()) waiting.reject(error);
		this.pending.clear();
	}

	private run(message: { op: 'hash' | 'verify'; password: string; hash?: string }): Promise<string | boolean> {
		const worker = this.start();
		worker.ref();
		// Stryker disable next-line UpdateOperator: equivalent: counting down gives unique ids too
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			worker.postMessage({ id, ...message });
		});
	}

	async hash(password: string): Promise<string> {
		return (await this.run({ op: 'hash', password })) as string;
	}

	async verify(hash: string, password: string): Promise<boolean> {
		if (!hash.startsWith('$argon2id$')) return false;
		return (await this.run({ op: 'verify', password, hash })) as boolean;
	}

	/** Spends the time of one verification for a login whose username does not exist. */
	async verifyNothing(password: string): Promise<false> {
		// Stryker disable next-line StringLiteral: equivalent: the answer is false whatever the dummy hash's password
		this.dummyHash ??= this.hash('not a password of anyone');
		await this.verify(await this.dummyHash, password);
		return false;
	}

	async close(): Promise<void> {
		const worker = this.worker;
		this.worker = undefined;
		await worker?.terminate();
	}
}

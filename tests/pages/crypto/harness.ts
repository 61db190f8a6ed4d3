/**
 * The helpers of the crypto worker's test page, reached by Playwright as `window.cryptoHarness`
 * (docs/crypto-worker.md "Tests and benchmark"): calls on the page's client with outcomes that keep the
 * ContractError code, the conformance runner against a worker of its own (contract 9.1), attachments,
 * key files, the key store at rest, and the browser benchmark's measurements.
 */
import type { ConformanceImplementation } from '../../../src/lib/conformance/implementation';
import { runConformance } from '../../../src/lib/conformance/runner';
import { createConformanceWorker } from '../../../src/lib/conformance/worker-client';
import { createCryptoWorker, type CryptoWorkerClient } from '../../../src/lib/crypto-worker/client';
import { requestPersistentStorage } from '../../../src/lib/keystore/persistence';
import { attachmentHelpers } from './attachments';
import { attempt } from './attempt';
import { benchmarkHelpers } from './benchmark';
import { dumpIndexedDb } from './indexeddb';

export function createHarness(client: CryptoWorkerClient, frames: () => number) {
	// The vectors run in a worker of their own: the inbox's worker takes handles, never raw keys.
	let conformance: ConformanceImplementation | undefined;
	return {
		client,
		frames,
		/** Calls a client method; the outcome tells whether a ContractError came back, and its code. */
		call: (method: keyof CryptoWorkerClient, ...args: unknown[]) =>
			attempt(async () => (client[method] as (...input: unknown[]) => Promise<unknown>).apply(client, args)),
		/** The shared conformance runner on this page against the worker (contract 9.1). */
		runVectors: (content: unknown) => runConformance('conformance.json', content, (conformance ??= createConformanceWorker())),
		...attachmentHelpers(client, frames),
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
		...benchmarkHelpers(client)
	};
}

export type CryptoHarness = ReturnType<typeof createHarness>;

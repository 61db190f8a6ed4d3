/**
 * The page's one crypto worker: started for the signed-in account so its
 * keys live in that account's own key store, and terminated on sign-out, which wipes every secret.
 * libsodium never loads on the main thread.
 */
import { createCryptoWorker, type CryptoWorkerClient } from '../crypto-worker/client';

let current: { accountId: string; client: CryptoWorkerClient } | null = null;

/** The worker of `accountId`, started on first use; another account's worker is terminated first. */
export function cryptoFor(accountId: string): CryptoWorkerClient {
	if (current?.accountId === accountId) return current.client;
	stopCrypto();
	current = { accountId, client: createCryptoWorker({ accountId }) };
	return current.client;
}

/** The running worker, if any. */
export function runningCrypto(): CryptoWorkerClient | null {
	return current?.client ?? null;
}

/** Terminates the worker: its memory, with every key, is gone. */
export function stopCrypto(): void {
	current?.client.terminate();
	current = null;
}

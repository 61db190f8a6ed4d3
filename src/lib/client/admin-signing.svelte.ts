/**
 * The admin's Ed25519 signing key in this browser (contract 2.1, 5.3;
 * docs/crypto-worker.md): `signing.key` is read and imported inside the crypto worker, wrapped in the
 * key store under the admin's passphrase, and kept only if its public half equals the `signing.pub`
 * the server holds. The page holds a handle; the secret is never uploaded and never on the main thread.
 */
import { ContractError } from '../errors';
import type { KeyInfo, UnlockedKey } from '../crypto-worker/types';
import { getSigningPublicKey, type SigningPublicKey } from './admin';
import { session } from './session.svelte';

/**
 * - `loading`: asking the server and the key store;
 * - `import`: no signing key in this browser;
 * - `unlock`: stored here, locked;
 * - `ready`: unlocked, its handle can sign;
 * - `mismatch`: the stored key is not the company's current `signing.pub` (import the right file);
 * - `failed`: the server or the key store could not be asked (`failure` says why).
 */
export type SigningPhase = 'loading' | 'import' | 'unlock' | 'ready' | 'mismatch' | 'failed';

/** The worker's `INVALID_INPUT` said for a person: a key of another company, or no key at all. */
function refusal(error: unknown): unknown {
	if (!(error instanceof ContractError) || error.code !== 'INVALID_INPUT') return error;
	const sentence = /expected public key/.test(error.message)
		? "This is not the company's signing key: its public half differs from the server's signing.pub."
		: `This file is not a signing.key (${error.message}).`;
	return new ContractError('INVALID_INPUT', `${sentence} Nothing was stored.`);
}

class SigningKeyState {
	phase = $state<SigningPhase>('loading');
	/** The company's `signing.pub` as the server holds it. */
	expected = $state<SigningPublicKey | null>(null);
	/** The signing key stored in this browser, locked or not. */
	stored = $state<KeyInfo | null>(null);
	key = $state<UnlockedKey | null>(null);
	failure = $state<ContractError | Error | null>(null);

	/** Asks the server for `signing.pub` and the worker for the stored key; keeps a handle only while it is still unlocked. */
	async load(): Promise<void> {
		this.failure = null;
		try {
			const [expected, status] = await Promise.all([getSigningPublicKey(), session.crypto.status()]);
			this.expected = expected;
			this.stored = status.signing;
			if (!status.signing?.unlocked) this.key = null;
			this.decide();
		} catch (error) {
			this.failure = error instanceof Error ? error : new Error(String(error));
			this.phase = 'failed';
		}
	}

	private decide(): void {
		if (!this.stored) this.phase = 'import';
		else if (this.stored.publicKey !== this.expected?.publicKey) this.phase = 'mismatch';
		else this.phase = this.key ? 'ready' : 'unlock';
	}

	/**
	 * Imports `file` (the key tool's `signing.key`) under `passphrase`. The worker refuses a file that
	 * is not a 64-byte libsodium key or whose public half is not the server's `signing.pub`
	 * (`INVALID_INPUT`), and stores nothing then.
	 */
	async import(file: File, passphrase: string): Promise<UnlockedKey> {
		if (!this.expected) throw new ContractError('INVALID_REQUEST', "the server's signing.pub is not known yet: reload the page");
		let key: UnlockedKey;
		try {
			key = await session.crypto.importSigningKey({
				signingKey: file,
				expectedPublicKey: this.expected.publicKey,
				passphrase,
				replace: this.stored !== null
			});
		} catch (error) {
			throw refusal(error);
		}
		this.key = key;
		this.stored = key;
		this.decide();
		return key;
	}

	async unlock(passphrase: string): Promise<UnlockedKey> {
		const key = await session.crypto.unlock('signing', passphrase);
		if (key.publicKey !== this.expected?.publicKey) {
			this.phase = 'mismatch';
			throw new ContractError('INVALID_INPUT', "the signing key stored in this browser is not the company's signing.pub");
		}
		this.key = key;
		this.decide();
		return key;
	}

	/** The handle to sign with; `LOCKED` when the key is not unlocked here. */
	get handle(): string {
		if (this.phase !== 'ready' || !this.key) throw new ContractError('LOCKED', 'unlock the signing key first');
		return this.key.handle;
	}
}

export const signingKey = new SigningKeyState();

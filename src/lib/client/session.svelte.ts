/**
 * The signed-in agent and their key (docs/inbox-api.md §2–§3): the session, then the
 * key gate — create a key on first login, unlock it later, restore it from a backup file or make a
 * new one when this browser has none — and the lock on sign-out, on idle and when the session ends.
 */
import { ContractError } from '../errors';
import type { KeyInfo, UnlockedKey } from '../crypto-worker/types';
import * as inbox from './api';
import { cryptoFor, runningCrypto, stopCrypto } from './crypto';
import { onUnauthenticated } from './http';
import type { AccountView } from './types';

/**
 * - `loading`: asking the server and the key store;
 * - `signed-out`: no session (show the login page);
 * - `create-key`: first login, no key anywhere;
 * - `restore-key`: a key is registered for the account but this browser has none;
 * - `unlock`: this browser holds the key, locked;
 * - `ready`: unlocked.
 */
export type SessionPhase = 'loading' | 'signed-out' | 'create-key' | 'restore-key' | 'unlock' | 'ready' | 'failed';

/** Why the key gate shows a notice once the key is ready. */
export type KeyNotice =
	/** A new key was registered: an admin must add it to the roster before conversations open. */
	| 'new-key'
	/** This browser's key differs from the one registered for the account. */
	| 'key-mismatch'
	/** The key was made here but could not be registered yet. */
	| 'not-registered'
	| null;

/** The server's readable marker that this browser signed in (docs/inbox-api.md §2); without it there is no session to ask for. */
function maybeSignedIn(): boolean {
	return document.cookie.split(/;\s*/).includes('inbox_signed_in=1');
}

class SessionStore {
	account = $state<AccountView | null>(null);
	/** The demo launcher left a key backup for this account, which the key page offers. */
	demoKeyBackup = $state(false);
	phase = $state<SessionPhase>('loading');
	/** The unlocked agent key (handle and public values). */
	key = $state<UnlockedKey | null>(null);
	/** The agent key stored in this browser, locked or not. */
	storedKey = $state<KeyInfo | null>(null);
	notice = $state<KeyNotice>(null);
	failure = $state<string | null>(null);
	/** Set when the key was locked because of inactivity, so the page can say so. */
	lockedForIdle = $state(false);
	private listening = false;

	get isAdmin(): boolean {
		return this.account?.role === 'admin';
	}

	get crypto() {
		if (!this.account) throw new ContractError('UNAUTHENTICATED', 'not signed in');
		return cryptoFor(this.account.accountId);
	}

	/** Loads the session and decides which key screen to show. */
	async start(): Promise<void> {
		if (!this.listening) {
			this.listening = true;
			onUnauthenticated(() => void this.sessionEnded());
		}
		this.phase = 'loading';
		this.failure = null;
		if (!maybeSignedIn()) {
			this.phase = 'signed-out';
			return;
		}
		try {
			const session = await inbox.getSession();
			this.account = session.account;
			this.demoKeyBackup = session.demoKeyBackup;
		} catch (error) {
			if (error instanceof ContractError && error.code === 'UNAUTHENTICATED') {
				this.phase = 'signed-out';
				return;
			}
			this.failure = error instanceof Error ? error.message : String(error);
			this.phase = 'failed';
			return;
		}
		await this.decideKeyPhase();
	}

	private async decideKeyPhase(): Promise<void> {
		try {
			const crypto = this.crypto;
			await crypto.ready();
			const status = await crypto.status();
			this.storedKey = status.agent;
			// unlocked in this worker already (a client-side navigation back to the app): nothing to ask
			if (status.agent?.unlocked && this.key) return this.markReady(this.key);
			if (status.agent) this.phase = 'unlock';
			else this.phase = this.account?.agentKeyId ? 'restore-key' : 'create-key';
		} catch (error) {
			this.failure = `The key store cannot be used: ${error instanceof Error ? error.message : String(error)}`;
			this.phase = 'failed';
		}
	}

	private async markReady(key: UnlockedKey | null): Promise<void> {
		if (key) this.key = key;
		this.lockedForIdle = false;
		this.phase = 'ready';
		await this.checkRegistration();
	}

	/** Registers this browser's key when the account has none; flags a different registered key. */
	private async checkRegistration(): Promise<void> {
		const key = this.key;
		const account = this.account;
		if (!key || !account || !key.agentKeyId) return;
		if (account.agentKeyId === key.agentKeyId && account.agentPublicKey === key.publicKey) {
			if (this.notice !== 'new-key') this.notice = null;
			return;
		}
		if (account.agentKeyId !== null) {
			this.notice = 'key-mismatch';
			return;
		}
		try {
			this.account = (await inbox.registerAgentKey({ agentKeyId: key.agentKeyId, publicKey: key.publicKey })).account;
			this.notice = 'new-key';
		} catch {
			this.notice = 'not-registered';
		}
	}

	/** First login: a new key under `passphrase`, registered with the server. */
	async createKey(passphrase: string): Promise<void> {
		const key = await this.crypto.createAgentKey(passphrase);
		this.storedKey = key;
		await this.markReady(key);
	}

	async unlock(passphrase: string): Promise<void> {
		const key = await this.crypto.unlock('agent', passphrase);
		await this.markReady(key);
	}

	/** Restores the key from a backup file (or its text). */
	async restore(backup: Blob | string, passphrase: string): Promise<void> {
		const key = await this.crypto.importBackup(backup, passphrase, { replace: true });
		this.storedKey = key;
		await this.markReady(key);
	}

	/**
	 * The key store is gone and there is no backup: a new key replaces the registered one. An admin
	 * must put it in the roster and re-grant the conversations (contract 6.7).
	 */
	async replaceWithNewKey(passphrase: string): Promise<void> {
		const crypto = this.crypto;
		await crypto.deleteKey('agent');
		const key = await crypto.createAgentKey(passphrase);
		this.storedKey = key;
		this.account = (
			await inbox.registerAgentKey({ agentKeyId: key.agentKeyId as string, publicKey: key.publicKey, replace: true })
		).account;
		this.key = key;
		this.notice = 'new-key';
		this.lockedForIdle = false;
		this.phase = 'ready';
	}

	/** Makes this browser's key the account's registered key (after a `key-mismatch`). */
	async registerThisKey(): Promise<void> {
		const key = this.key;
		if (!key?.agentKeyId) return;
		this.account = (await inbox.registerAgentKey({ agentKeyId: key.agentKeyId, publicKey: key.publicKey, replace: true })).account;
		this.notice = 'new-key';
	}

	async retryRegistration(): Promise<void> {
		await this.checkRegistration();
	}

	dismissNotice(): void {
		this.notice = null;
	}

	/** Wipes the worker's secrets; the page shows the unlock screen. */
	async lock(reason: 'idle' | 'manual' = 'manual'): Promise<void> {
		if (this.phase !== 'ready') return;
		this.key = null;
		this.lockedForIdle = reason === 'idle';
		this.phase = 'unlock';
		await runningCrypto()
			?.lock()
			.catch(() => stopCrypto());
	}

	/**
	 * Signs out: the server forgets the session, the worker is terminated with every secret, and this
	 * account's drafts and search index are removed (after the lock, which stops any further draft from
	 * being written and takes the index out of memory).
	 */
	async logout(): Promise<void> {
		try {
			const crypto = runningCrypto();
			await crypto?.lock();
			await crypto?.clearDrafts();
			await crypto?.clearSearch();
		} catch {
			// terminated below anyway
		}
		stopCrypto();
		this.key = null;
		await inbox.logout().catch(() => undefined);
		this.account = null;
		this.phase = 'signed-out';
	}

	private async sessionEnded(): Promise<void> {
		if (this.phase === 'signed-out') return;
		stopCrypto();
		this.key = null;
		this.account = null;
		this.phase = 'signed-out';
	}
}

export const session = new SessionStore();

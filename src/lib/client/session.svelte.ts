/**
 * The signed-in agent and their key (docs/inbox-api.md §2–§3): the session, then the
 * key gate — create a key on first login, unlock it later, restore it from a backup file or make a
 * new one when this browser has none — and the lock on sign-out, on idle and when the session ends.
 * The key is unlocked once per browser session (docs/crypto-worker.md "Unlock once per browser
 * session"): a reload or another tab opens it with the server's share, and a lock or a sign-out in one
 * tab reaches every tab.
 */
import { ContractError } from '../errors';
import type { KeyInfo, UnlockedKey } from '../crypto-worker/types';
import * as inbox from './api';
import { cryptoFor, runningCrypto, stopCrypto } from './crypto';
import { onUnauthenticated } from './http';
import { hearOtherTabs, tellOtherTabs, type SessionTabMessage } from './session-tabs';
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
	/** An admin, or an agent of the latest roster (the team's labels and canned replies are theirs). */
	rosterAgent = $state(false);
	phase = $state<SessionPhase>('loading');
	/** The unlocked agent key (handle and public values). */
	key = $state<UnlockedKey | null>(null);
	/** The agent key stored in this browser, locked or not. */
	storedKey = $state<KeyInfo | null>(null);
	notice = $state<KeyNotice>(null);
	failure = $state<string | null>(null);
	/** Set when the key was locked because of inactivity, so the page can say so. */
	lockedForIdle = $state(false);
	/**
	 * From an unlock in this page until sign-out: the workspace — the list, the live stream, the unread
	 * count and the notifications — stays open while the key is locked; only reading needs the passphrase.
	 */
	workspaceOpen = $state(false);
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
			hearOtherTabs((message) => void this.heardFromOtherTab(message));
		}
		this.phase = 'loading';
		this.workspaceOpen = false;
		this.failure = null;
		if (!maybeSignedIn()) {
			this.phase = 'signed-out';
			return;
		}
		try {
			const session = await inbox.getSession();
			this.account = session.account;
			this.demoKeyBackup = session.demoKeyBackup;
			this.rosterAgent = session.rosterAgent;
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
			this.key = null;
			if (status.agent) {
				const resumed = await this.resumeUnlock();
				if (resumed) return this.markReady(resumed);
				this.phase = 'unlock';
			} else this.phase = this.account?.agentKeyId ? 'restore-key' : 'create-key';
		} catch (error) {
			this.failure = `The key store cannot be used: ${error instanceof Error ? error.message : String(error)}`;
			this.phase = 'failed';
		}
	}

	/**
	 * The key another tab of this browser session unlocked (or this page, before a reload), opened with
	 * the server's share; null when the session has no share or the share no longer opens the sealed copy.
	 */
	private async resumeUnlock(): Promise<UnlockedKey | null> {
		try {
			const { share } = await inbox.getUnlockShare();
			return share ? await this.crypto.resumeUnlock(share) : null;
		} catch {
			return null;
		}
	}

	/** `unlockedHere`: opened with the passphrase in this tab, so kept for the session's other tabs and reloads. */
	private async markReady(key: UnlockedKey | null, unlockedHere = false): Promise<void> {
		if (key) this.key = key;
		// kept before the inbox shows, so that a reload at once finds it
		if (key && unlockedHere) await this.keepForSession(key);
		this.lockedForIdle = false;
		this.phase = 'ready';
		this.workspaceOpen = true;
		await this.checkRegistration();
	}

	/** Seals the unlocked key under the session's share for the other tabs and reloads, and tells the locked tabs. */
	private async keepForSession(key: UnlockedKey): Promise<void> {
		try {
			const { share } = await inbox.keepUnlockShare();
			await this.crypto.rememberUnlock(key.handle, share);
			tellOtherTabs({ type: 'unlocked' });
		} catch {
			// this tab is unlocked all the same; the others and a reload ask for the passphrase
		}
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
		await this.markReady(key, true);
	}

	async unlock(passphrase: string): Promise<void> {
		const key = await this.crypto.unlock('agent', passphrase);
		await this.markReady(key, true);
	}

	/** Restores the key from a backup file (or its text). */
	async restore(backup: Blob | string, passphrase: string): Promise<void> {
		const key = await this.crypto.importBackup(backup, passphrase, { replace: true });
		this.storedKey = key;
		await this.markReady(key, true);
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
		await this.keepForSession(key);
		this.lockedForIdle = false;
		this.phase = 'ready';
		this.workspaceOpen = true;
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

	/**
	 * Locks every tab of this browser session: the server drops the share and the sealed copy is deleted,
	 * so the passphrase is needed again; the other tabs are told, and this worker's secrets are wiped.
	 */
	async lock(reason: 'idle' | 'manual' = 'manual'): Promise<void> {
		if (this.phase !== 'ready') return;
		tellOtherTabs({ type: 'locked', reason });
		await Promise.all([inbox.dropUnlockShare().catch(() => undefined), this.lockThisTab(reason, { forgetSealedCopy: true })]);
	}

	/** Wipes this worker's secrets (and deletes the sealed copy when asked); the page shows the unlock screen. */
	private async lockThisTab(reason: 'idle' | 'manual', { forgetSealedCopy = false } = {}): Promise<void> {
		if (this.phase !== 'ready') return;
		this.key = null;
		this.lockedForIdle = reason === 'idle';
		this.phase = 'unlock';
		const crypto = runningCrypto();
		try {
			if (forgetSealedCopy) await crypto?.forgetUnlock();
			await crypto?.lock();
		} catch {
			stopCrypto();
		}
	}

	/** What another tab of this browser session did: this tab follows it without telling anyone. */
	private async heardFromOtherTab(message: SessionTabMessage): Promise<void> {
		if (message.type === 'locked') return this.lockThisTab(message.reason);
		if (message.type === 'signed-out') return this.sessionEnded();
		if (this.phase !== 'unlock') return;
		const resumed = await this.resumeUnlock();
		if (resumed && this.phase === 'unlock') await this.markReady(resumed);
	}

	/**
	 * Signs out: the server forgets the session, the worker is terminated with every secret, and this
	 * account's drafts and search index are removed (after the lock, which stops any further draft from
	 * being written and takes the index out of memory).
	 */
	async logout(): Promise<void> {
		try {
			const crypto = runningCrypto();
			await crypto?.forgetUnlock();
			await crypto?.lock();
			await crypto?.clearDrafts();
			await crypto?.clearSearch();
		} catch {
			// terminated below anyway
		}
		stopCrypto();
		this.key = null;
		await inbox.logout().catch(() => undefined);
		tellOtherTabs({ type: 'signed-out' });
		this.account = null;
		this.workspaceOpen = false;
		this.phase = 'signed-out';
	}

	private async sessionEnded(): Promise<void> {
		if (this.phase === 'signed-out') return;
		stopCrypto();
		this.key = null;
		this.account = null;
		this.workspaceOpen = false;
		this.phase = 'signed-out';
	}
}

export const session = new SessionStore();

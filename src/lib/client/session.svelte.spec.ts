/**
 * The signed-in agent and their key (docs/inbox-api.md §2–§3) against the running inbox, with the
 * page's own crypto worker client and the worker's code run in this process: which key screen a session
 * opens on, a key made, registered and flagged until an admin adds it, the idle lock, a key of another
 * browser, a restore from a backup, a new key replacing a lost one, the key unlocked once per browser
 * session (a reload opens it with the server's share; a lock, an unlock or a sign-out reaches the other
 * tabs), and signing out — or the session ending elsewhere — terminating the worker with every secret
 * and wiping this account's drafts and index.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerKey } from '$test-support/admin-api';
import { InProcessWorker } from '$test-support/in-process-crypto-worker';
import { ADMIN, AGENT, useStack } from '$test-support/integration';
import { PageNetwork } from '$test-support/page-network';
import { createCryptoWorker } from '../crypto-worker/client';
import { dropUnlockShare, getSession, getTeam, keepUnlockShare, getUnlockShare, login, logout } from './api';
import { stopCrypto } from './crypto';
import { session } from './session.svelte';
import { SESSION_TABS_CHANNEL, type SessionTabMessage } from './session-tabs';

// Real processes on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const PASSPHRASE = 'the passphrase of Ada';

const harness = useStack('PGlite');
let network: PageNetwork;
const registered = async () => (await getSession()).account;
const latestWorker = () => InProcessWorker.started.at(-1)!;

beforeAll(() => {
	network = new PageNetwork(harness.stack().inbox.url);
	vi.stubGlobal('fetch', network.fetch);
	vi.stubGlobal('Worker', InProcessWorker);
	return () => {
		InProcessWorker.terminateAll();
		vi.unstubAllGlobals();
	};
});

describe('the session: which key screen it opens on (docs/inbox-api.md §2)', () => {
	it('shows the sign-in without asking in a browser that never signed in, and says why when the server could not be asked', async () => {
		const asked = () => network.sent('GET', /^\/api\/session$/).length;
		const before = asked();
		await session.start();
		expect([session.phase, session.account, session.failure, asked()]).toEqual(['signed-out', null, null, before]);
		expect(() => session.crypto).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
		// a browser that signed in asks; when the server cannot be reached the page says so
		document.cookie = 'inbox_signed_in=1; Path=/';
		network.cutNextRequest('GET', /^\/api\/session$/);
		await session.start();
		expect([session.phase, session.failure]).toEqual(['failed', expect.stringMatching(/Failed to fetch/)]);
		// its session gone on the server: the sign-in
		await session.start();
		expect([session.phase, session.account, session.failure, asked()]).toEqual(['signed-out', null, null, before + 2]);
		document.cookie = 'inbox_signed_in=; Max-Age=0; Path=/';
		expect(InProcessWorker.started).toEqual([]);
	});

	it('asks for a key at the first sign-in, registers the one made in the worker, and says an admin must add it', async () => {
		await login(AGENT.username, AGENT.password);
		await session.start();
		expect([session.phase, session.isAdmin, session.storedKey]).toEqual(['create-key', false, null]);
		await session.createKey(PASSPHRASE);
		const key = session.key!;
		expect([session.phase, session.notice, session.storedKey?.agentKeyId]).toEqual(['ready', 'new-key', key.agentKeyId]);
		expect(await registered()).toMatchObject({ agentKeyId: key.agentKeyId, agentPublicKey: key.publicKey });
		expect(session.account?.agentKeyId).toBe(key.agentKeyId);
		expect(InProcessWorker.started).toHaveLength(1);
	});
});

describe('the session: the key, locked, of another browser, restored or replaced', () => {
	it('locks on idle, saying so: the worker forgets the key until the passphrase unlocks it again', async () => {
		await session.lock('idle');
		expect([session.phase, session.key, session.lockedForIdle]).toEqual(['unlock', null, true]);
		expect((await session.crypto.status()).agent?.unlocked).toBe(false);
		await expect(session.unlock('not the passphrase')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
		expect(session.phase).toBe('unlock');
		await session.unlock(PASSPHRASE);
		// the registered key is this one; the notice stays until an admin's roster makes it go
		expect([session.phase, session.lockedForIdle, session.notice]).toEqual(['ready', false, 'new-key']);
		session.dismissNotice();
		expect(session.notice).toBeNull();

		// back in the app with the key unlocked in this worker: nothing to ask
		await session.start();
		expect([session.phase, InProcessWorker.started.length]).toEqual(['ready', 1]);
	});

	it("flags a key registered from another browser, and makes this browser's key the registered one when asked", async () => {
		await registerKey(await harness.login(AGENT));
		await session.start();
		expect([session.phase, session.notice]).toEqual(['ready', 'key-mismatch']);
		await session.registerThisKey();
		expect(session.notice).toBe('new-key');
		expect((await registered()).agentKeyId).toBe(session.key?.agentKeyId);
		session.dismissNotice();
	});

	it('restores the registered key from its backup in a browser without it, or replaces it with a new one', async () => {
		const backup = await session.crypto.exportBackup('agent', PASSPHRASE);
		const registeredKey = session.key!.agentKeyId;
		await session.crypto.deleteKey('agent');
		await session.start();
		expect([session.phase, session.storedKey]).toEqual(['restore-key', null]);
		await expect(session.restore(backup.text, 'not the passphrase')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
		await session.restore(new Blob([backup.text]), PASSPHRASE);
		expect([session.phase, session.key?.agentKeyId, session.notice]).toEqual(['ready', registeredKey, null]);

		await session.crypto.deleteKey('agent');
		await session.start();
		expect(session.phase).toBe('restore-key');
		await session.replaceWithNewKey('a new passphrase for Ada');
		const replaced = session.key!;
		expect(replaced.agentKeyId).not.toBe(registeredKey);
		expect([session.phase, session.notice, session.storedKey?.agentKeyId]).toEqual(['ready', 'new-key', replaced.agentKeyId]);
		expect((await registered()).agentKeyId).toBe(replaced.agentKeyId);
	});
});

describe('the session: unlocked once per browser session (docs/crypto-worker.md "Unlock once per browser session")', () => {
	const NEW_PASSPHRASE = 'a new passphrase for Ada';
	/** A reload: the worker, with every secret in its memory, is gone; the page starts again. */
	const reload = async () => {
		stopCrypto();
		await session.start();
	};
	/** Another tab of this browser session, as the page's channel sees it. */
	const otherTab = new BroadcastChannel(SESSION_TABS_CHANNEL);
	const nextFromThisTab = () =>
		new Promise<SessionTabMessage>((resolve) =>
			otherTab.addEventListener('message', (event) => resolve(event.data as SessionTabMessage), { once: true })
		);
	afterAll(() => otherTab.close());

	it('opens the key after a reload without the passphrase, with the server share and the sealed copy both needed', async () => {
		const unlocked = session.key!;
		await reload();
		expect([session.phase, session.key?.publicKey, session.workspaceOpen]).toEqual(['ready', unlocked.publicKey, true]);

		// the browser's sealed copy without the server's share opens nothing
		await dropUnlockShare();
		await reload();
		expect([session.phase, session.key]).toEqual(['unlock', null]);
		await session.unlock(NEW_PASSPHRASE);

		// nor does the server's share without the sealed copy
		await session.crypto.forgetUnlock();
		expect((await getUnlockShare()).share).toEqual(expect.any(String));
		await reload();
		expect([session.phase, session.key]).toEqual(['unlock', null]);
		await session.unlock(NEW_PASSPHRASE);
		await reload();
		expect(session.phase).toBe('ready');
	});

	it('locks every tab: the other tabs are told, the server drops the share, and a reload asks for the passphrase', async () => {
		const told = nextFromThisTab();
		await session.lock('idle');
		expect(await told).toEqual({ type: 'locked', reason: 'idle' });
		expect([session.phase, session.key, session.lockedForIdle, session.workspaceOpen]).toEqual(['unlock', null, true, true]);
		expect(await getUnlockShare()).toEqual({ share: null });
		await reload();
		expect([session.phase, session.workspaceOpen]).toEqual(['unlock', false]);

		const toldOfUnlock = nextFromThisTab();
		await session.unlock(NEW_PASSPHRASE);
		expect(await toldOfUnlock).toEqual({ type: 'unlocked' });
	});

	it('follows the other tabs without telling them back: their lock locks it, their unlock opens it, their sign-out signs it out', async () => {
		const worker = latestWorker();
		otherTab.postMessage({ type: 'locked', reason: 'manual' } satisfies SessionTabMessage);
		await vi.waitFor(() => expect(session.phase).toBe('unlock'));
		expect([session.key, session.lockedForIdle, (await session.crypto.status()).agent?.unlocked]).toEqual([null, false, false]);
		// the tab that locked drops the share; this one only follows
		expect((await getUnlockShare()).share).toEqual(expect.any(String));

		// the other tab unlocks with the passphrase and keeps the key for the session; this one opens it
		const otherTabsWorker = createCryptoWorker({ accountId: session.account!.accountId });
		const { handle } = await otherTabsWorker.unlock('agent', NEW_PASSPHRASE);
		await otherTabsWorker.rememberUnlock(handle, (await keepUnlockShare()).share);
		otherTabsWorker.terminate();
		otherTab.postMessage({ type: 'unlocked' } satisfies SessionTabMessage);
		await vi.waitFor(() => expect(session.phase).toBe('ready'));
		expect((await session.crypto.status()).agent?.unlocked).toBe(true);

		otherTab.postMessage({ type: 'signed-out' } satisfies SessionTabMessage);
		await vi.waitFor(() => expect(session.phase).toBe('signed-out'));
		expect([session.account, session.key, session.workspaceOpen, worker.terminated]).toEqual([null, null, false, true]);

		// the page signs in again: this session is still open on the server, with its share
		await session.start();
		expect(session.phase).toBe('ready');
	});
});

describe('the session: signing out, or ended elsewhere', () => {
	it("signs out: the server forgets the session, the worker goes with every secret, and this account's drafts and index are wiped", async () => {
		await session.crypto.saveDraft('conv_draft', { text: 'half a reply', mode: 'reply' });
		await session.crypto.markSearchCovered('conv_draft', 'msg_indexed');
		const worker = latestWorker();
		await session.logout();
		expect([session.phase, session.account, session.key, worker.terminated]).toEqual(['signed-out', null, null, true]);
		await expect(getSession()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });

		await login(AGENT.username, AGENT.password);
		await session.start();
		expect([session.phase, latestWorker() === worker]).toEqual(['unlock', false]);
		await session.unlock('a new passphrase for Ada');
		expect(await session.crypto.loadDraft('conv_draft')).toBeNull();
		expect((await session.crypto.searchStatus()).coverage).toEqual({});
	});

	it('signs out by itself when the session ends elsewhere: the next call is refused, the worker is terminated, and the passphrase is asked again', async () => {
		const worker = latestWorker();
		await logout(); // as an expiry or another tab would end it
		await expect(getTeam()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
		expect([session.phase, session.account, session.key, worker.terminated]).toEqual(['signed-out', null, null, true]);

		// signed in again: a new session, without a share, so the copy the ended one left behind opens nothing
		await login(AGENT.username, AGENT.password);
		await session.start();
		expect([session.phase, session.key]).toEqual(['unlock', null]);
	});

	it("registers a key later when the first registration did not reach the server; another account's worker is terminated first", async () => {
		const admin = await harness.login(ADMIN);
		const ben = { username: 'ben', displayName: 'Ben Agent', role: 'agent', password: 'ben password 1234' };
		expect((await admin.post('/api/admin/accounts', ben)).status).toBe(201);
		await login(AGENT.username, AGENT.password);
		await session.start();
		const adasWorker = latestWorker();
		await login(ben.username, ben.password);
		await session.start();
		expect([session.phase, adasWorker.terminated, latestWorker() === adasWorker]).toEqual(['create-key', true, false]);

		network.cutNextRequest('PUT', /^\/api\/agent-key$/);
		await session.createKey('the passphrase of Ben');
		expect([session.phase, session.notice, (await registered()).agentKeyId]).toEqual(['ready', 'not-registered', null]);
		await session.retryRegistration();
		expect([session.notice, (await registered()).agentKeyId]).toEqual(['new-key', session.key?.agentKeyId]);
	});
});

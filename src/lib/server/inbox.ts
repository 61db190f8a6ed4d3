/**
 * The inbox server assembled from its parts (DESIGN "inbox server"): configuration, company keys
 * (contract 2.1, loaded and checked at start), the database, the webhook secrets, the upstream client,
 * the webhook receiver and processor, rewraps, grant jobs, the live hub and the login machinery; and
 * their orderly shutdown.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { initCrypto } from '../crypto/sodium';
import { GrantRunner } from './admin/grants';
import { ServicePortal } from './admin/portal';
import { LoginThrottle } from './auth/login-throttle';
import { PasswordHasher } from './auth/passwords';
import { SessionCache } from './auth/session-cache';
import { deleteExpiredSessions, hashToken, resolveSession, type Session } from './auth/sessions';
import { bodyLimitIsEnough, type InboxConfig } from './config';
import { RewrapWorker } from './conversations/rewrap';
import { openDatabase, type Database } from './db/database';
import { deleteExpiredInviteSecrets } from './db/invites';
import { pruneLiveEvents, SESSION_ENDED_CHANNEL } from './db/live-events';
import { pruneOperations } from './db/operations';
import { pruneWebhookEvents } from './db/webhook-events';
import { KEY_FILES, loadCompanyKeys, type CompanyKeys } from './keys/files';
import { WebhookSecrets } from './keys/webhook-secrets';
import { LiveHub } from './live/hub';
import { consoleLogger, errorText, type Logger } from './log';
import { UpstreamClient } from './upstream/client';
import { WebhookProcessor } from './webhooks/processor';
import { WebhookReceiver } from './webhooks/receiver';

export interface Inbox {
	config: InboxConfig;
	db: Database;
	log: Logger;
	upstream: UpstreamClient;
	receiver: WebhookReceiver;
	processor: WebhookProcessor;
	rewraps: RewrapWorker;
	/** Grant jobs (contract 6.7): running ones continue at start. */
	grants: GrantRunner;
	/** The webhook secret in use, current and previous, across rotations. */
	webhookSecrets: WebhookSecrets;
	/** The service's portal: driven directly when the service is the simulator. */
	portal: ServicePortal;
	hub: LiveHub;
	passwords: PasswordHasher;
	loginThrottle: LoginThrottle;
	/** The session of a cookie's token (cached a few seconds; see auth/session-cache.ts). */
	session(token: string | undefined): Promise<Session | undefined>;
	sessionCache: SessionCache;
	/** The company keys as on disk now (read again after a change, so a rotation takes effect at once). */
	companyKeys(): Promise<CompanyKeys>;
	now(): number;
	close(): Promise<void>;
}

const MAINTENANCE_MS = 10 * 60_000;

export async function startInbox(config: InboxConfig, options: { log?: Logger; now?: () => number } = {}): Promise<Inbox> {
	const log = options.log ?? consoleLogger;
	const now = options.now ?? Date.now;
	await initCrypto();
	// The key files are read again whenever the directory or the current public key changed (a rotation).
	const keysVersion = async () => {
		const [directory, current] = await Promise.all([stat(config.keysDir), stat(join(config.keysDir, KEY_FILES.publicKey))]);
		return `${directory.mtimeMs}:${current.mtimeMs}:${current.ino}`;
	};
	let keys = await loadCompanyKeys(config.keysDir);
	let keysSeen = await keysVersion();
	const companyKeys = async () => {
		const seen = await keysVersion().catch(() => keysSeen);
		if (seen === keysSeen) return keys;
		try {
			keys = await loadCompanyKeys(config.keysDir);
			keysSeen = seen;
			log.info('company keys read again', { companyKeyVersion: keys.current.keyVersion, previous: keys.previous.length });
		} catch (error) {
			// Mid-rotation or damaged: keep the keys that worked, and try again next time.
			log.warn('company keys could not be read again; the loaded ones stay in use', { reason: errorText(error) });
		}
		return keys;
	};

	const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
	const webhookSecrets = await WebhookSecrets.load(
		{ current: config.webhookSecret, previous: config.webhookSecretPrevious, previousUntil: config.webhookSecretPreviousUntil },
		config.dataDir,
		{ now, log }
	);
	const upstream = new UpstreamClient({
		baseUrl: config.serviceBaseUrl,
		apiKey: config.serviceApiKey,
		signingSecret: () => webhookSecrets.signing(),
		db,
		now
	});
	const rewraps = new RewrapWorker({ db, upstream, companyKeys, now, log });
	const grants = new GrantRunner({ db, upstream, companyKeys, now, log });
	const processor = new WebhookProcessor({ db, now, log, wakeRewraps: () => rewraps.wake() });
	const receiver = new WebhookReceiver({
		db,
		secrets: () => webhookSecrets.accepted(),
		refreshSecrets: () => webhookSecrets.refresh(),
		now,
		log,
		onStored: () => processor.wake()
	});
	const hub = new LiveHub(db, log);
	await hub.start();
	const sessionCache = new SessionCache();
	const stopSessionListener = await db.listen(SESSION_ENDED_CHANNEL, (tokenHash) => {
		if (tokenHash) sessionCache.dropToken(tokenHash);
	});
	const session = async (token: string | undefined) => {
		if (!token || token.length > 100) return undefined;
		const cached = sessionCache.get(hashToken(token), now());
		if (cached) return cached;
		const resolved = await resolveSession(db, token, new Date(now()));
		if (resolved) sessionCache.set(resolved, now());
		return resolved;
	};
	if (config.webhookProcessing) {
		processor.start();
		rewraps.start();
		grants.start();
	}

	const loginThrottle = new LoginThrottle(db);
	const pruneLoginAttempts = (_db: Database, at: Date) => loginThrottle.prune(at);
	const maintain = async () => {
		const at = new Date(now());
		for (const task of [
			deleteExpiredSessions,
			pruneLiveEvents,
			pruneOperations,
			deleteExpiredInviteSecrets,
			pruneWebhookEvents,
			pruneLoginAttempts
		]) {
			await task(db, at).catch((error) => log.warn('maintenance step failed', { step: task.name, reason: errorText(error) }));
		}
		// PostgreSQL vacuums and analyzes by itself; PGlite does not.
		if (db.kind === 'pglite') await db.exec('vacuum (analyze)').catch((error) => log.warn('vacuum failed', { reason: errorText(error) }));
	};
	void maintain();
	const maintenance = setInterval(() => void maintain(), MAINTENANCE_MS);
	maintenance.unref?.();

	const passwords = new PasswordHasher();
	let closing: Promise<void> | undefined;
	if (!bodyLimitIsEnough(process.env.BODY_SIZE_LIMIT)) {
		log.warn('BODY_SIZE_LIMIT is below 2M: roster and agent-wrap uploads of up to 1 MiB will be refused; set BODY_SIZE_LIMIT=2M');
	}
	log.info('inbox started', {
		database: db.kind,
		service: config.serviceBaseUrl,
		companyKeyVersion: keys.current.keyVersion,
		webhookProcessing: config.webhookProcessing
	});
	return {
		config,
		db,
		log,
		upstream,
		receiver,
		processor,
		rewraps,
		grants,
		webhookSecrets,
		portal: new ServicePortal(config.serviceBaseUrl),
		hub,
		passwords,
		loginThrottle,
		session,
		sessionCache,
		companyKeys,
		now,
		close: () =>
			(closing ??= (async () => {
				clearInterval(maintenance);
				await stopSessionListener();
				await processor.stop();
				await rewraps.stop();
				await grants.stop();
				await hub.stop();
				await passwords.close();
				await db.close();
			})())
	};
}

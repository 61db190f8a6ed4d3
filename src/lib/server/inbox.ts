/**
 * The inbox server assembled from its parts (DESIGN "inbox server"): configuration, company keys
 * (contract 2.1, loaded and checked at start), the database, the webhook secrets, the upstream client,
 * the webhook receiver and processor, rewraps, grant jobs, the live hub and the login machinery; and
 * their orderly shutdown.
 */
import { initCrypto } from '../crypto/sodium';
import { GRANT_POLL_MS, GrantRunner } from './admin/grants';
import { ServicePortal } from './admin/portal';
import { LoginThrottle } from './auth/login-throttle';
import { PasswordHasher } from './auth/passwords';
import { SessionCache } from './auth/session-cache';
import { SessionResolver } from './auth/session-resolver';
import type { Session } from './auth/sessions';
import { bodyLimitIsEnough, type InboxConfig } from './config';
import { RewrapWorker } from './conversations/rewrap';
import { openDatabase, type Database } from './db/database';
import { CompanyKeyFiles } from './keys/company-key-files';
import type { CompanyKeys } from './keys/files';
import { checkCompanyKeyFiles, COMPANY_KEY_CHANNEL, companyKeyMismatch } from './keys/company-key-state';
import { WebhookSecrets } from './keys/webhook-secrets';
import { LiveHub } from './live/hub';
import { errorText, serverLogger, type Logger } from './log';
import { Maintenance } from './maintenance';
import { startTeamClock } from './conversations/lifecycle';
import { AwayReplies } from './conversations/away-reply';
import { assignWaiting } from './conversations/round-robin';
import { coalesce, type Coalesced } from './coalesce';
import { SnoozeAlarm } from './conversations/snooze-alarm';
import { convertPendingProfiles } from './conversations/pending-profiles';
import { UpstreamClient } from './upstream/client';
import { UsageCounter } from './usage/caps';
import { observe } from './metrics';
import { readiness } from './readiness';
import { startMetricsServer } from './metrics-server';
import { pendingQueue } from './db/webhook-events';
import { runningGrantProgress } from './db/grant-jobs';
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
	/** What each account spends of what the team shares, within the configured caps. */
	usage: UsageCounter;
	/** Wakes snoozed conversations when their snooze ends. */
	snoozes: SnoozeAlarm;
	/** Gives waiting conversations to the agents whose turn it is (after a customer wrote or an agent came online). */
	roundRobin: Coalesced;
	/** The session of a cookie's token (cached a few seconds; see auth/session-cache.ts). */
	session(token: string | undefined): Promise<Session | undefined>;
	sessionCache: SessionCache;
	/** The company keys as on disk now (read again after a change, so a rotation takes effect at once). */
	companyKeys(): Promise<CompanyKeys>;
	now(): number;
	/** The process is stopping (docs/operations.md "Stopping a process"): health answers 503. */
	readonly draining: boolean;
	/**
	 * Stops taking work and gives back what it holds (webhook events, grant jobs, rewraps), and tells the
	 * live streams to reconnect elsewhere; the HTTP server finishes its requests meanwhile.
	 */
	drain(): Promise<void>;
	close(): Promise<void>;
}

/** The company key files and the database they are checked against, with the webhook secrets. */
interface Foundation {
	keyFiles: CompanyKeyFiles;
	companyKeys: () => Promise<CompanyKeys>;
	db: Database;
	webhookSecrets: WebhookSecrets;
	/** Stops hearing of company key rotations other processes record. */
	stopFollowingKeys: () => Promise<void>;
}

/**
 * Opens the key files and the database, refuses files that differ from the database's current key, and
 * logs at once when another process records a rotation these files did not follow (docs/operations.md).
 */
async function openFoundation(config: InboxConfig, log: Logger, now: () => number): Promise<Foundation> {
	const keyFiles = await CompanyKeyFiles.open(config.keysDir, log);
	// A process paused inside a transaction for as long as a lease has lost its work anyway: PostgreSQL
	// rolls the transaction back, so its locks stop holding the other processes up.
	const db = await openDatabase({
		databaseUrl: config.databaseUrl,
		dataDir: config.dataDir,
		idleInTransactionTimeoutMs: config.workLeaseMs
	});
	try {
		await checkCompanyKeyFiles(db, keyFiles.loaded, new Date(now()));
	} catch (error) {
		await db.close();
		throw error;
	}
	const stopFollowingKeys = await db.listen(COMPANY_KEY_CHANNEL, () => {
		void keyFiles
			.current()
			.then((keys) => companyKeyMismatch(db, keys))
			.then((mismatch) => mismatch && log.error(`a company key rotation was made by another process: ${mismatch}`))
			.catch(() => undefined);
	});
	const webhookSecrets = await WebhookSecrets.load(
		{ current: config.webhookSecret, previous: config.webhookSecretPrevious, previousUntil: config.webhookSecretPreviousUntil },
		db,
		{ now, log, dataDir: config.dataDir }
	);
	return { keyFiles, companyKeys: () => keyFiles.current(), db, webhookSecrets, stopFollowingKeys };
}

/** What talks to the service, and the background work: rewraps, grant jobs, webhook processing and the receiver. */
function createWorkers(config: InboxConfig, { db, companyKeys, webhookSecrets }: Foundation, hub: LiveHub, log: Logger, now: () => number) {
	const upstream = new UpstreamClient({
		baseUrl: config.serviceBaseUrl,
		apiKey: config.serviceApiKey,
		signingSecret: () => webhookSecrets.signing(),
		db,
		now,
		log,
		onReachability: (reachable) => hub.announceServiceReachability(reachable)
	});
	const rewraps = new RewrapWorker({ db, upstream, companyKeys, now, log });
	// A job whose owner died is looked for at least once per lease, so it is taken over within about two.
	const grants = new GrantRunner({
		db,
		upstream,
		companyKeys,
		now,
		log,
		leaseMs: config.workLeaseMs,
		pollMs: Math.min(GRANT_POLL_MS, config.workLeaseMs)
	});
	const storeInvitationProfiles = () => convertPendingProfiles({ db, companyKeys, log }, new Date(now()));
	const roundRobin = coalesce(async () => {
		const assigned = await assignWaiting(db, new Date(now())).catch((error) => {
			log.warn('the round-robin could not assign', { reason: errorText(error) });
			return 0;
		});
		if (assigned > 0) log.info('the round-robin assigned conversations', { assigned });
	});
	const awayReplies = new AwayReplies({ db, upstream, companyKeys, now, log });
	const answerAway = coalesce(async () => {
		await awayReplies.run().catch((error) => log.warn('the away replies could not run', { reason: errorText(error) }));
	});
	const processor = new WebhookProcessor({
		db,
		now,
		log,
		leaseMs: config.workLeaseMs,
		wakeRewraps: () => rewraps.wake(),
		customersWrote: () => {
			roundRobin.trigger();
			answerAway.trigger();
		},
		conversationStarted: () =>
			void storeInvitationProfiles().catch((error) => log.warn('profiles not stored', { reason: errorText(error) }))
	});
	const receiver = new WebhookReceiver({
		db,
		secrets: () => webhookSecrets.accepted(),
		refreshSecrets: () => webhookSecrets.refresh(),
		now,
		log,
		onStored: () => processor.wake()
	});
	return { upstream, rewraps, grants, processor, receiver, storeInvitationProfiles, roundRobin, answerAway };
}

/**
 * The periodic work every process runs: retention, snoozes that end (on time), profiles written with an
 * invitation, conversations the round-robin could not give anyone yet, away replies not sent yet.
 */
function startHousekeeping(
	db: Database,
	loginThrottle: LoginThrottle,
	teamTasks: { storeInvitationProfiles: () => Promise<unknown>; roundRobin: Coalesced; answerAway: Coalesced },
	log: Logger,
	now: () => number
) {
	const maintenance = new Maintenance({ db, log, now, pruneLoginAttempts: (at) => loginThrottle.prune(at) });
	maintenance.start();
	const teamClock = startTeamClock(
		[teamTasks.storeInvitationProfiles, async () => teamTasks.roundRobin.trigger(), async () => teamTasks.answerAway.trigger()],
		log
	);
	const snoozes = new SnoozeAlarm({ db, log, now });
	snoozes.start();
	return {
		snoozes,
		stop() {
			maintenance.stop();
			teamClock.stop();
			snoozes.stop();
		}
	};
}

export async function startInbox(config: InboxConfig, options: { log?: Logger; now?: () => number } = {}): Promise<Inbox> {
	const log = options.log ?? serverLogger;
	const now = options.now ?? Date.now;
	await initCrypto();
	const foundation = await openFoundation(config, log, now);
	const { db, keyFiles, companyKeys, webhookSecrets } = foundation;
	const hub = new LiveHub(db, log);
	await hub.start();
	const workers = createWorkers(config, foundation, hub, log, now);
	const { upstream, rewraps, grants, processor, receiver, roundRobin } = workers;
	const sessions = await SessionResolver.start(db, now);
	if (config.webhookProcessing) {
		processor.start();
		rewraps.start();
		grants.start();
	}
	const loginThrottle = new LoginThrottle(db);
	const housekeeping = startHousekeeping(db, loginThrottle, workers, log, now);
	const metricsServer = config.metrics.port ? await startMetricsServer(config.metrics.port, config.metrics.host, log) : null;
	const passwords = new PasswordHasher();

	let closing: Promise<void> | undefined;
	let draining: Promise<void> | undefined;
	const drain = () =>
		(draining ??= (async () => {
			await Promise.all([processor.stop(), rewraps.stop(), grants.stop()]);
			await hub.stop();
		})());
	if (!bodyLimitIsEnough(process.env.BODY_SIZE_LIMIT)) {
		log.warn('BODY_SIZE_LIMIT is below 2M: roster and agent-wrap uploads of up to 1 MiB will be refused; set BODY_SIZE_LIMIT=2M');
	}
	log.info('inbox started', {
		database: db.kind,
		service: config.serviceBaseUrl,
		companyKeyVersion: keyFiles.loaded.current.keyVersion,
		webhookProcessing: config.webhookProcessing
	});
	const inbox: Inbox = {
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
		usage: new UsageCounter(db, config.caps),
		snoozes: housekeeping.snoozes,
		roundRobin,
		session: (token) => sessions.resolve(token),
		sessionCache: sessions.cache,
		companyKeys,
		now,
		get draining() {
			return draining !== undefined;
		},
		drain,
		close: () =>
			(closing ??= (async () => {
				housekeeping.stop();
				await metricsServer?.close();
				await sessions.stop();
				await drain();
				await webhookSecrets.stop();
				await foundation.stopFollowingKeys();
				await passwords.close();
				await db.close();
			})())
	};
	observeInbox(inbox);
	return inbox;
}

/** The gauges read at each scrape (metrics.ts). */
function observeInbox(inbox: Inbox): void {
	observe({
		queue: () => pendingQueue(inbox.db, new Date(inbox.now())),
		grantJobs: () => runningGrantProgress(inbox.db),
		liveStreams: () => inbox.hub.streamCount,
		embeddedDatabaseMemory: async () => (inbox.db.embeddedMemory ? inbox.db.embeddedMemory() : null),
		unreadyReasons: async () => (await readiness(inbox)).reasons
	});
}

/**
 * The inbox server's configuration, read from the environment and validated at start with one clear
 * message per problem (never a secret's value). Credentials are the portal's (contract 2.3); company key
 * files live in `DATA_DIR/keys` (contract 2.1).
 */
import { isAbsolute, join, resolve } from 'node:path';
import { b64uDecode } from '../crypto/encoding';
import { isId, KEY_BYTES } from '../crypto/rules';
import type { UsageCaps } from '../inbox-api/usage';
import { DEFAULT_LEASE_MS } from './db/leases';
import { readLogLevel } from './log';
import { readListenOptions, type ListenOptions } from './node/listen';
import { UNLOCK_SHARE_GRACE_MS } from './auth/unlock-share';
import { DEFAULT_CAPS } from './usage/caps';

export interface InboxConfig {
	/** The service's base URL without a trailing slash; requests go to `<serviceBaseUrl>/v1/...`. */
	serviceBaseUrl: string;
	serviceApiKey: string;
	/** The current `whsec_…`: signs requests (contract 5.1) and verifies webhooks (5.2). */
	webhookSecret: string;
	/** The previous secret during a rotation: still accepted on webhooks until `webhookSecretPreviousUntil`. */
	webhookSecretPrevious: string | null;
	/** The end of the rotation's overlap (the portal's `previousValidUntil`): the previous secret is refused after it. */
	webhookSecretPreviousUntil: Date | null;
	/** The company's id at the service (rosters and rotation statements name it); learnt from webhooks when unset. */
	serviceCompanyId: string | null;
	dataDir: string;
	keysDir: string;
	/** PostgreSQL when set; PGlite under `DATA_DIR/pglite` otherwise (not durable: docs/operations.md). */
	databaseUrl: string | null;
	/** Where the HTTP server listens, its timeouts and its shutdown (node/listen.ts). */
	listen: ListenOptions;
	/** The inbox's public origin (`https://inbox.example.com`): the origin check and cookies use it. */
	origin: string;
	/** `WEBHOOK_PROCESSING=off` makes this process receive and store webhooks without processing them. */
	webhookProcessing: boolean;
	/**
	 * How long a claim on shared work (webhook events, a grant job) holds without renewal, `WORK_LEASE_MS`:
	 * what a killed or paused process held is taken over by another within about this time.
	 */
	workLeaseMs: number;
	/** The origins of the presigned upload and download URLs (contract 2.7): the pages may connect to these only. */
	storageOrigins: string[];
	/** What one account may spend of what the team shares (usage/caps.ts), from `CAP_*`. */
	caps: UsageCaps;
	/**
	 * How long a session's unlock share outlives its last open tab (auth/unlock-share.ts), from
	 * `UNLOCK_SHARE_GRACE_SECONDS`: long enough for a reload, short enough that closing the browser ends it.
	 */
	unlockShareGraceMs: number;
	/**
	 * Where the Prometheus metrics are served (docs/operations.md "Metrics"): `/metrics` on the main port for
	 * a request with `Authorization: Bearer <token>`, and/or a port of their own on `host`; neither when unset.
	 */
	metrics: { token: string | null; port: number | null; host: string };
}

export class ConfigError extends Error {
	override readonly name = 'ConfigError';

	constructor(readonly problems: string[]) {
		super(`The inbox cannot start; fix its configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
	}
}

type Env = Record<string, string | undefined>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
	return LOOPBACK.has(hostname);
}

/** `prefix` + unpadded base64url of exactly 32 bytes (contract 2.3). */
function isCredential(value: string, prefix: string): boolean {
	if (!value.startsWith(prefix)) return false;
	try {
		return b64uDecode(value.slice(prefix.length)).length === KEY_BYTES;
	} catch {
		return false;
	}
}

function parseUrl(value: string): URL | undefined {
	try {
		return new URL(value);
	} catch {
		return undefined;
	}
}

function readServiceBaseUrl(value: string | undefined, problems: string[]): string {
	if (!value) {
		problems.push("SERVICE_BASE_URL is not set: the service's base URL, e.g. https://api.example.com (without /v1)");
		return '';
	}
	const url = parseUrl(value);
	if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
		problems.push(`SERVICE_BASE_URL must be an http(s) URL, got ${JSON.stringify(value)}`);
		return '';
	}
	if (url.username || url.password || url.search || url.hash) {
		problems.push('SERVICE_BASE_URL must not carry credentials, a query or a fragment');
	}
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		problems.push('SERVICE_BASE_URL must use https (http is allowed only for localhost): the API key travels with every request');
	}
	const base = url.href.replace(/\/+$/, '');
	if (/\/v1$/.test(base)) problems.push('SERVICE_BASE_URL must not end with /v1: the inbox adds /v1 itself');
	return base;
}

/**
 * The end of a webhook secret rotation's overlap, as the portal gave it (`previousValidUntil`, contract
 * 5.2): required with a previous secret, so that it is never accepted for ever (docs/contract-gaps.md).
 */
function readPreviousUntil(value: string | undefined, hasPrevious: boolean, problems: string[]): Date | null {
	if (!value) {
		if (hasPrevious) {
			problems.push(
				"SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL is missing: set it to the end of the rotation's overlap (the portal's previousValidUntil, e.g. 2026-11-25T10:00:00Z)"
			);
		}
		return null;
	}
	const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) ? new Date(value) : null;
	if (!at || Number.isNaN(at.getTime())) {
		problems.push('SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL must be a date and time with its zone, e.g. 2026-11-25T10:00:00Z');
		return null;
	}
	if (!hasPrevious) problems.push('SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL is set without SERVICE_WEBHOOK_SECRET_PREVIOUS');
	return at;
}

function readCredential(env: Env, name: string, prefix: string, what: string, problems: string[], required: boolean): string | null {
	const value = env[name];
	if (value === undefined || value === '') {
		if (required) problems.push(`${name} is not set: ${what} (${prefix}…)`);
		return null;
	}
	if (!isCredential(value.trim(), prefix)) {
		problems.push(`${name} is not a valid ${what}: it must be ${prefix} followed by the base64url of 32 bytes`);
		return null;
	}
	return value.trim();
}

function readOrigin(value: string | undefined, fallback: string | undefined, problems: string[]): string {
	if (!value) {
		if (fallback) return fallback;
		problems.push("ORIGIN is not set: the inbox's public origin as agents type it, e.g. https://inbox.example.com");
		return '';
	}
	const url = parseUrl(value);
	if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname !== '/' || url.search || url.hash || url.username) {
		problems.push(`ORIGIN must be a scheme and host only, e.g. https://inbox.example.com, got ${JSON.stringify(value)}`);
		return '';
	}
	return url.origin;
}

/** A scheme and host only, with a host name a Content-Security-Policy source can carry as it is. */
function isBareOrigin(url: URL): boolean {
	return (
		(url.protocol === 'https:' || url.protocol === 'http:') &&
		url.pathname === '/' &&
		!url.search &&
		!url.hash &&
		!url.username &&
		!url.password &&
		/^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)
	);
}

/**
 * `STORAGE_ORIGINS`: origins separated by commas or spaces (https; http only for localhost, where the
 * simulator runs). Unset, the storage is taken to live where the service does.
 */
function readStorageOrigins(value: string | undefined, serviceBaseUrl: string, problems: string[]): string[] {
	const listed = (value ?? '').split(/[\s,]+/).filter((item) => item !== '');
	if (listed.length === 0) return serviceBaseUrl ? [new URL(serviceBaseUrl).origin] : [];
	const origins = new Set<string>();
	for (const item of listed) {
		const url = parseUrl(item);
		if (!url || !isBareOrigin(url)) {
			problems.push(
				`STORAGE_ORIGINS must list origins, a scheme and host only (e.g. https://storage.example.com), got ${JSON.stringify(item)}`
			);
		} else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
			problems.push(`STORAGE_ORIGINS must use https (http is allowed only for localhost), got ${JSON.stringify(item)}`);
		} else origins.add(url.origin);
	}
	return [...origins];
}

function readDatabaseUrl(value: string | undefined, problems: string[]): string | null {
	if (value === undefined || value === '') return null;
	const url = parseUrl(value);
	if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
		problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset to use the embedded PGlite database)');
		return null;
	}
	return value;
}

/**
 * PGlite does not flush its files to the disk, so a power loss can lose acknowledged webhooks, which
 * the service does not send again (docs/operations.md "The embedded database"): a production server
 * uses it only when the operator accepts that with ACCEPT_NON_DURABLE_DATABASE=on.
 */
function checkDurableStore(env: Env, databaseUrl: string | null, problems: string[]): void {
	const accepted = readSwitch('ACCEPT_NON_DURABLE_DATABASE', env.ACCEPT_NON_DURABLE_DATABASE, false, problems);
	if (databaseUrl !== null || env.DATABASE_URL || accepted) return;
	problems.push(
		'DATABASE_URL is not set: the embedded PGlite database does not flush to the disk, so a power loss can lose ' +
			'acknowledged webhooks for good. Set DATABASE_URL to a PostgreSQL database, or set ACCEPT_NON_DURABLE_DATABASE=on ' +
			'to run on PGlite anyway (a trial, a demo)'
	);
}

/** The variable of each cap (docs/operations.md "Caps per account"). */
const CAP_VARIABLES: Readonly<Record<keyof UsageCaps, string>> = {
	uploadsPerHour: 'CAP_UPLOADS_PER_HOUR',
	writesPerMinute: 'CAP_WRITES_PER_MINUTE',
	streamsPerSession: 'CAP_STREAMS_PER_SESSION',
	streamsPerAccount: 'CAP_STREAMS_PER_ACCOUNT'
};

function readCaps(env: Env, problems: string[]): UsageCaps {
	const caps = { ...DEFAULT_CAPS };
	for (const [field, name] of Object.entries(CAP_VARIABLES) as [keyof UsageCaps, string][]) {
		const value = env[name];
		if (value === undefined || value === '') continue;
		if (!/^[0-9]{1,7}$/.test(value) || Number(value) < 1)
			problems.push(`${name} must be a whole number from 1, got ${JSON.stringify(value)}`);
		else caps[field] = Number(value);
	}
	return caps;
}

/** `UNLOCK_SHARE_GRACE_SECONDS`: 1 to 3,600 seconds (docs/operations.md "Unlock once per browser session"). */
function readUnlockShareGrace(value: string | undefined, problems: string[]): number {
	if (value === undefined || value === '') return UNLOCK_SHARE_GRACE_MS;
	if (/^[0-9]{1,4}$/.test(value) && Number(value) >= 1 && Number(value) <= 3600) return Number(value) * 1000;
	problems.push(`UNLOCK_SHARE_GRACE_SECONDS must be a whole number of seconds from 1 to 3600, got ${JSON.stringify(value)}`);
	return UNLOCK_SHARE_GRACE_MS;
}

/** `WORK_LEASE_MS`: whole milliseconds, long enough for its renewals (every third of it) to keep up. */
function readWorkLease(value: string | undefined, problems: string[]): number {
	if (value === undefined || value === '') return DEFAULT_LEASE_MS;
	if (/^[0-9]{1,6}$/.test(value) && Number(value) >= 1_000 && Number(value) <= 300_000) return Number(value);
	problems.push(`WORK_LEASE_MS must be a whole number of milliseconds from 1000 to 300000, got ${JSON.stringify(value)}`);
	return DEFAULT_LEASE_MS;
}

/** `METRICS_TOKEN` (at least 32 characters), `METRICS_PORT` and `METRICS_HOST` (default 127.0.0.1). */
function readMetrics(env: Env, problems: string[]): InboxConfig['metrics'] {
	const token = env.METRICS_TOKEN || null;
	if (token !== null && !/^[\x21-\x7e]{32,256}$/.test(token)) {
		problems.push('METRICS_TOKEN must be 32 to 256 printable characters (a random bearer token for /metrics)');
	}
	let port: number | null = null;
	if (env.METRICS_PORT) {
		if (/^[0-9]{1,5}$/.test(env.METRICS_PORT) && Number(env.METRICS_PORT) >= 1 && Number(env.METRICS_PORT) <= 65535)
			port = Number(env.METRICS_PORT);
		else problems.push(`METRICS_PORT must be an integer from 1 to 65535, got ${JSON.stringify(env.METRICS_PORT)}`);
	}
	return { token, port, host: env.METRICS_HOST || '127.0.0.1' };
}

function readSwitch(name: string, value: string | undefined, fallback: boolean, problems: string[]): boolean {
	if (value === undefined || value === '') return fallback;
	if (value === 'on') return true;
	if (value === 'off') return false;
	problems.push(`${name} must be on or off, got ${JSON.stringify(value)}`);
	return fallback;
}

/**
 * Reads and validates the whole configuration; throws one ConfigError listing every problem.
 * `defaultOrigin` stands in for a missing ORIGIN (development server only); `durableStore` (the
 * production server) refuses the embedded database unless the operator accepted that it is not durable.
 */
export function loadConfig(env: Env, options: { cwd?: string; defaultOrigin?: string; durableStore?: boolean } = {}): InboxConfig {
	const problems: string[] = [];
	const serviceBaseUrl = readServiceBaseUrl(env.SERVICE_BASE_URL, problems);
	const serviceApiKey = readCredential(env, 'SERVICE_API_KEY', 'sk_live_', 'API key from the service portal', problems, true);
	const webhookSecret = readCredential(env, 'SERVICE_WEBHOOK_SECRET', 'whsec_', 'webhook secret from the service portal', problems, true);
	const webhookSecretPrevious = readCredential(
		env,
		'SERVICE_WEBHOOK_SECRET_PREVIOUS',
		'whsec_',
		'previous webhook secret (set only during a rotation)',
		problems,
		false
	);
	if (webhookSecretPrevious !== null && webhookSecretPrevious === webhookSecret) {
		problems.push('SERVICE_WEBHOOK_SECRET_PREVIOUS equals SERVICE_WEBHOOK_SECRET: unset it, or set it to the secret before the rotation');
	}
	const webhookSecretPreviousUntil = readPreviousUntil(env.SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL, webhookSecretPrevious !== null, problems);
	const serviceCompanyId = env.SERVICE_COMPANY_ID || null;
	if (serviceCompanyId !== null && !isId(serviceCompanyId)) {
		problems.push('SERVICE_COMPANY_ID must be the company id from the service portal (1 to 128 characters of A-Z a-z 0-9 _ -)');
	}
	const dataDirText = env.DATA_DIR || './data';
	const dataDir = isAbsolute(dataDirText) ? dataDirText : resolve(options.cwd ?? process.cwd(), dataDirText);
	const databaseUrl = readDatabaseUrl(env.DATABASE_URL, problems);
	if (options.durableStore) checkDurableStore(env, databaseUrl, problems);
	const listen = readListenOptions(env, problems);
	const origin = readOrigin(env.ORIGIN, options.defaultOrigin, problems);
	const webhookProcessing = readSwitch('WEBHOOK_PROCESSING', env.WEBHOOK_PROCESSING, true, problems);
	const workLeaseMs = readWorkLease(env.WORK_LEASE_MS, problems);
	const storageOrigins = readStorageOrigins(env.STORAGE_ORIGINS, serviceBaseUrl, problems);
	const caps = readCaps(env, problems);
	const unlockShareGraceMs = readUnlockShareGrace(env.UNLOCK_SHARE_GRACE_SECONDS, problems);
	const metrics = readMetrics(env, problems);
	// the log reads LOG_LEVEL itself, from its first line on (log.ts); a wrong one stops the start here
	readLogLevel(env.LOG_LEVEL, problems);
	if (problems.length) throw new ConfigError(problems);
	return {
		serviceBaseUrl,
		serviceApiKey: serviceApiKey as string,
		webhookSecret: webhookSecret as string,
		webhookSecretPrevious,
		webhookSecretPreviousUntil,
		serviceCompanyId,
		dataDir,
		keysDir: join(dataDir, 'keys'),
		databaseUrl,
		listen,
		origin,
		webhookProcessing,
		workLeaseMs,
		storageOrigins,
		caps,
		unlockShareGraceMs,
		metrics
	};
}

/** Whether cookies may go without `Secure`: only for an origin on the local machine over http. */
export function originIsLocalHttp(origin: string): boolean {
	const url = new URL(origin);
	return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/** adapter-node's BODY_SIZE_LIMIT (bytes, or with K, M, G; `Infinity`) against the 1 MiB bodies the proxy forwards. */
export function bodyLimitIsEnough(value: string | undefined): boolean {
	if (value === undefined || value === '') return false;
	if (value === 'Infinity') return true;
	const match = /^(\d+)([KMG]?)$/i.exec(value.trim());
	if (!match) return false;
	const factor = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[match[2].toUpperCase() as '' | 'K' | 'M' | 'G'];
	return Number(match[1]) * factor >= 1.5 * 1024 * 1024;
}

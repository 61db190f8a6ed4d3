/**
 * What a domain module of the inbox server may be given (docs/architecture.md, "The server"): each
 * module names only the parts it uses — the database, the clock, the log, the service, the company key
 * files — and the composition root (inbox.ts), the one place that holds them all, passes itself where
 * these fit. No domain module imports the composition root.
 */
import type { Database } from './db/database';
import type { CompanyKeys } from './keys/files';
import type { Logger } from './log';
import type { UpstreamClient } from './upstream/client';

export interface WithDatabase {
	readonly db: Database;
}

export interface WithClock {
	/** Milliseconds since the epoch; a test clock in the specs. */
	readonly now: () => number;
}

export interface WithLog {
	readonly log: Logger;
}

/** The service's `/v1`, signed (upstream/client.ts). */
export interface WithService {
	readonly upstream: UpstreamClient;
}

/** The company key files as on disk now (keys/company-key-files.ts). */
export interface WithCompanyKeys {
	readonly companyKeys: () => Promise<CompanyKeys>;
}

/** The database and the clock: what most changes of the team's state need. */
export type StoreDeps = WithDatabase & WithClock;

/** Everything a flow that talks to the service with the company's keys needs. */
export type ServiceDeps = WithDatabase & WithClock & WithLog & WithService & WithCompanyKeys;

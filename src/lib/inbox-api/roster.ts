/**
 * The roster and its grant jobs as the inbox server's admin API carries them (docs/inbox-api.md §12,
 * "The roster" and "Grant jobs"), declared once for the server that builds them and the admin pages that
 * read them. Types only: nothing here runs.
 */
import type { RosterRecord } from '../wire/v1-records';

/** An agent of a roster, with the account that holds its key (null for a key no current account holds). */
export interface RosterEntry {
	agentKeyId: string;
	publicKey: string;
	accountId: string | null;
	displayName: string | null;
}

/** An accepted roster. */
export interface RosterView {
	rosterVersion: number;
	issuedAt: string;
	agents: RosterEntry[];
	signature: string;
	uploadedAt: string;
	/** The admin's accountId; null for a roster uploaded to the service by another tool. */
	uploadedBy: string | null;
	/** That admin's display name, for the page (null as above, or once the account is deleted). */
	uploadedByName: string | null;
}

/** What the next roster would hold: the page signs it (contract 6.7) after showing the difference. */
export interface NextRoster {
	rosterVersion: number;
	companyId: string;
	/** Active agents with a key, sorted by `agentKeyId` bytes. */
	agents: RosterEntry[];
}

/** A roster the service serves that does not verify with `signing.pub`: never kept, shown to admins as an alert. */
export interface UnverifiedServiceRoster {
	rosterVersion: number;
	reason: string;
}

/** `GET /api/admin/roster`. */
export interface RosterOverview {
	latest: RosterView | null;
	unverifiedAtService: UnverifiedServiceRoster | null;
	/** Newest first. */
	history: RosterView[];
	next: NextRoster;
}

/** The body of `POST /api/admin/roster`: exactly the signed roster as `/v1/roster` takes it, no other field. */
export type SignedRosterUpload = RosterRecord;

/** A grant job: wraps of earlier conversations for the agents a roster added. */
export interface GrantJobView {
	jobId: string;
	rosterVersion: number;
	agentKeyIds: string[];
	state: 'running' | 'done' | 'failed';
	total: number;
	done: number;
	failed: number;
	startedAt: string;
	finishedAt: string | null;
	lastError: string | null;
}

/** The answer to `POST /api/admin/roster`: the roster kept, and the grant job it started (null without new agents). */
export interface AcceptedRoster {
	roster: RosterView;
	grantJob: GrantJobView | null;
}

/** `GET /api/admin/grant-jobs`. */
export interface GrantJobList {
	data: GrantJobView[];
}

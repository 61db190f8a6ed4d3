/**
 * Whether a process should be sent work (docs/operations.md "Readiness"): not while it drains, while its
 * database does not answer, or while its company key files differ from the key the database records as
 * current (its invitations would carry the wrong fingerprint). Read by `GET /api/ready` and by the metrics.
 */
import type { Readiness, UnreadyReason } from '../inbox-api/records';
import type { Queryable } from './db/database';
import { pendingQueue } from './db/webhook-events';
import type { CompanyKeys } from './keys/files';
import { companyKeyMismatch } from './keys/company-key-state';

export interface ReadinessSources {
	readonly draining: boolean;
	db: Queryable;
	companyKeys(): Promise<CompanyKeys>;
	upstream: { readonly reachable: boolean };
	now(): number;
}

export async function readiness(inbox: ReadinessSources): Promise<Readiness> {
	const reasons: UnreadyReason[] = [];
	if (inbox.draining) reasons.push('draining');
	let queue: Readiness['queue'] = null;
	try {
		queue = await pendingQueue(inbox.db, new Date(inbox.now()));
		if (await companyKeyMismatch(inbox.db, await inbox.companyKeys())) reasons.push('company_key_files');
	} catch {
		reasons.push('database');
	}
	return {
		status: reasons.length === 0 ? 'ready' : 'unready',
		reasons,
		queue,
		service: inbox.upstream.reachable ? 'reachable' : 'unreachable'
	};
}

/**
 * `GET /api/ready` (docs/operations.md "Readiness"; docs/inbox-api.md §9): whether a load balancer should
 * send this process work — not while it drains, while its database does not answer, or while its company
 * key files differ from the key the database records as current (its invitations would carry the wrong
 * fingerprint). The answer names the reasons, the webhook queue's depth and its oldest event's age, and
 * whether the service answers this process: operational facts, no secret and no count of customers, so
 * anyone may ask. `/api/health` stays liveness only.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import type { Readiness, UnreadyReason } from '../../inbox-api/records';
import { pendingQueue } from '../db/webhook-events';
import type { Inbox } from '../inbox';
import { companyKeyMismatch } from '../keys/company-key-state';
import { answer, handle } from './event';

export async function readiness(inbox: Pick<Inbox, 'draining' | 'db' | 'companyKeys' | 'upstream' | 'now'>): Promise<Readiness> {
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

export const getReady = handle(API.getReady, async (_event, inbox) => {
	const state = await readiness(inbox);
	return answer(API.getReady, state, state.status === 'ready' ? 200 : 503);
});

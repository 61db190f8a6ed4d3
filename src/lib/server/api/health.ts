/**
 * `GET /api/health` (docs/inbox-api.md §9): whether this process takes requests (not while it stops) and
 * the database answers, and nothing else.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import type { Inbox } from '../inbox';
import { errorResponse } from '../http/responses';
import { answer, handle } from './event';

const STOPPING = new ContractError('UNAVAILABLE', 'this inbox process is stopping');

/** Throws `UNAVAILABLE` while the process stops or when the database does not answer. */
export async function checkHealth(inbox: Pick<Inbox, 'draining' | 'db'>): Promise<void> {
	if (inbox.draining) throw STOPPING;
	try {
		// Stryker disable next-line all: equivalent: any statement, the empty one too, fails when the database does not answer
		await inbox.db.query('select 1');
	} catch {
		throw new ContractError('UNAVAILABLE', 'the inbox database is not available');
	}
}

export const getHealth = handle(API.getHealth, async (_event, inbox) => {
	try {
		await checkHealth(inbox);
	} catch (error) {
		// the expected answer while the process stops, not a failure to log as one: the request's line tells it
		if (error === STOPPING) return errorResponse(error);
		throw error;
	}
	return answer(API.getHealth, { status: 'ok' });
});

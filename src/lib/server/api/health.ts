/**
 * `GET /api/health` (docs/inbox-api.md §9): whether this process takes requests (not while it stops) and
 * the database answers, and nothing else.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import type { Inbox } from '../inbox';
import { answer, handle } from './event';

/** Throws `UNAVAILABLE` while the process stops or when the database does not answer. */
export async function checkHealth(inbox: Pick<Inbox, 'draining' | 'db'>): Promise<void> {
	if (inbox.draining) throw new ContractError('UNAVAILABLE', 'this inbox process is stopping');
	try {
		await inbox.db.query('select 1');
	} catch {
		throw new ContractError('UNAVAILABLE', 'the inbox database is not available');
	}
}

export const getHealth = handle(API.getHealth, async (_event, inbox) => {
	await checkHealth(inbox);
	return answer(API.getHealth, { status: 'ok' });
});

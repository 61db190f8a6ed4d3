/**
 * `GET /api/ready` (docs/operations.md "Readiness"; docs/inbox-api.md §9): 200 when this process should be
 * sent work, 503 with the reasons otherwise (server/readiness.ts). The answer names the reasons, the
 * webhook queue's depth and its oldest event's age, and whether the service answers this process:
 * operational facts, no secret and no count of customers, so anyone may ask. `/api/health` stays
 * liveness only.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { readiness } from '../readiness';
import { answer, handle } from './event';

export const getReady = handle(API.getReady, async (_event, inbox) => {
	const state = await readiness(inbox);
	return answer(API.getReady, state, state.status === 'ready' ? 200 : 503);
});

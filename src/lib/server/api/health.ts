/**
 * `GET /api/health` (docs/inbox-api.md §9): whether the database answers, and nothing else.
 */
import { ContractError } from '../../errors';
import { json } from '../http/responses';
import { route } from './event';

export const getHealth = route(async (_event, inbox) => {
	try {
		await inbox.db.query('select 1');
	} catch {
		throw new ContractError('UNAVAILABLE', 'the inbox database is not available');
	}
	return json({ status: 'ok' });
});

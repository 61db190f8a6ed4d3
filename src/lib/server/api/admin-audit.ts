/**
 * The audit log for admins (docs/inbox-api.md, "Audit log"): `GET /api/admin/audit` with `action`,
 * `actor` (account id), `before` / `after` (entry numbers) and `limit`; every entry comes with its hashes,
 * so the page verifies the chain itself.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { listAuditEntries } from '../db/audit';
import { requireSession, answer, handle } from './event';
import type { AuditPage } from '../../inbox-api/audit';

const PARAMETERS = new Set(['action', 'actor', 'before', 'after', 'limit']);

function integerParameter(search: URLSearchParams, name: string, max: number): number | undefined {
	const value = search.get(name);
	if (value === null) return undefined;
	if (!/^[0-9]{1,15}$/.test(value) || Number(value) > max) {
		throw new ContractError('INVALID_REQUEST', `${name} must be an integer from 0 to ${max}`);
	}
	return Number(value);
}

function textParameter(search: URLSearchParams, name: string): string | undefined {
	const value = search.get(name);
	if (value === null || value === '') return undefined;
	if (value.length > 128) throw new ContractError('INVALID_REQUEST', `${name} must be at most 128 characters`);
	return value;
}

export const getAudit = handle(API.listAudit, async (event, inbox) => {
	requireSession(event);
	const search = event.url.searchParams;
	for (const name of search.keys()) {
		if (!PARAMETERS.has(name) || search.getAll(name).length > 1) {
			throw new ContractError('INVALID_REQUEST', `unknown or repeated parameter ${name.slice(0, 64)}`);
		}
	}
	const before = integerParameter(search, 'before', Number.MAX_SAFE_INTEGER);
	const after = integerParameter(search, 'after', Number.MAX_SAFE_INTEGER);
	if (before !== undefined && after !== undefined) throw new ContractError('INVALID_REQUEST', 'give before or after, not both');
	const limit = integerParameter(search, 'limit', 500) ?? 100;
	if (limit < 1) throw new ContractError('INVALID_REQUEST', 'limit must be an integer from 1 to 500');
	const data = await listAuditEntries(inbox.db, {
		action: textParameter(search, 'action'),
		actorId: textParameter(search, 'actor'),
		before,
		after,
		limit
	});
	return answer(API.listAudit, { data, hasMore: data.length === limit } satisfies AuditPage);
});

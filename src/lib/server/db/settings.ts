/**
 * The team's settings an admin chooses (docs/inbox-api.md, "Settings"), one row per setting, shared by
 * every inbox process. Only known settings with known values are stored; an absent row is its default.
 */
import { ContractError } from '../../errors';
import type { InboxSettings, RewrapApproval } from '../../inbox-api/records';
import type { Account } from './accounts';
import type { Queryable } from './database';

/**
 * By default a second person approves the rewrap of a re-invitation: one stolen password alone must not
 * be enough to hand a conversation's history to a new device (docs/threat-model.md, "A stolen laptop").
 */
export const REWRAP_APPROVALS: readonly RewrapApproval[] = ['automatic', 'second_person'];

export const DEFAULT_SETTINGS: InboxSettings = { reinviteRewrap: 'second_person' };

export async function readSettings(db: Queryable): Promise<InboxSettings> {
	const rows = await db.query<{ name: string; value: unknown }>('select name, value from inbox_settings');
	const settings = { ...DEFAULT_SETTINGS };
	for (const row of rows) {
		if (row.name === 'reinviteRewrap' && REWRAP_APPROVALS.includes(row.value as RewrapApproval)) {
			settings.reinviteRewrap = row.value as RewrapApproval;
		}
	}
	return settings;
}

/** Checks a settings change of an admin's request body: known names, known values, nothing else. */
export function parseSettingsChange(body: Record<string, unknown>): Partial<InboxSettings> {
	const change: Partial<InboxSettings> = {};
	for (const [name, value] of Object.entries(body)) {
		if (name !== 'reinviteRewrap') throw new ContractError('INVALID_REQUEST', `unknown setting ${name.slice(0, 64)}`);
		if (!REWRAP_APPROVALS.includes(value as RewrapApproval)) {
			throw new ContractError('INVALID_REQUEST', `reinviteRewrap must be one of ${REWRAP_APPROVALS.join(', ')}`);
		}
		change.reinviteRewrap = value as RewrapApproval;
	}
	return change;
}

export async function updateSettings(db: Queryable, change: Partial<InboxSettings>, by: Account, now: Date): Promise<void> {
	for (const [name, value] of Object.entries(change)) {
		await db.query(
			`insert into inbox_settings (name, value, updated_by, updated_at) values ($1, $2, $3, $4)
			 on conflict (name) do update set value = excluded.value, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
			[name, JSON.stringify(value), by.accountId, now]
		);
	}
}

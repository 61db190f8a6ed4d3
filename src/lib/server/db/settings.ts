/**
 * The team's settings an admin chooses (docs/inbox-api.md, "Settings"), one row per setting, shared by
 * every inbox process. Only known settings with known values are stored; an absent row is its default.
 */
import { ContractError } from '../../errors';
import type { InboxSettings, RewrapApproval } from '../../inbox-api/records';
import { awayReplyProblem } from '../../service-targets/away-reply';
import { businessHoursProblem } from '../../service-targets/business-hours';
import { serviceTargetsProblem } from '../../service-targets/targets';
import type { Account } from './accounts';
import type { Queryable } from './database';

/**
 * By default a second person approves the rewrap of a re-invitation: one stolen password alone must not
 * be enough to hand a conversation's history to a new device (docs/threat-model.md, "A stolen laptop").
 */
export const REWRAP_APPROVALS: readonly RewrapApproval[] = ['automatic', 'second_person'];

export const DEFAULT_SETTINGS: InboxSettings = {
	reinviteRewrap: 'second_person',
	assignOnFirstReply: false,
	roundRobin: false,
	roundRobinCap: 0,
	businessHours: null,
	serviceTargets: null,
	awayReply: null
};

interface SettingRule {
	accepts: (value: unknown) => boolean;
	expected: string;
	/** For a structured value: what is wrong with it, or null (then `expected` is not used). */
	problem?: (value: unknown) => string | null;
}

/** A structured setting that may also be null (off). */
const nullableSetting = (problem: (value: unknown) => string | null): SettingRule => ({
	accepts: (value) => value === null || problem(value) === null,
	expected: 'null or a valid value',
	problem: (value) => (value === null ? null : problem(value))
});

/** Each setting's rule: a value is stored and read back only when its rule accepts it. */
const SETTING_RULES: { [name in keyof InboxSettings]: SettingRule } = {
	reinviteRewrap: {
		accepts: (value) => REWRAP_APPROVALS.includes(value as RewrapApproval),
		expected: `one of ${REWRAP_APPROVALS.join(', ')}`
	},
	assignOnFirstReply: { accepts: (value) => typeof value === 'boolean', expected: 'true or false' },
	roundRobin: { accepts: (value) => typeof value === 'boolean', expected: 'true or false' },
	roundRobinCap: {
		accepts: (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 10_000,
		expected: 'a whole number from 0 (no cap) to 10000'
	},
	businessHours: nullableSetting(businessHoursProblem),
	serviceTargets: nullableSetting(serviceTargetsProblem),
	awayReply: nullableSetting(awayReplyProblem)
};

const isSettingName = (name: string): name is keyof InboxSettings => Object.hasOwn(SETTING_RULES, name);

export async function readSettings(db: Queryable): Promise<InboxSettings> {
	const rows = await db.query<{ name: string; value: unknown }>('select name, value from inbox_settings');
	const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
	for (const row of rows) {
		if (isSettingName(row.name) && SETTING_RULES[row.name].accepts(row.value)) settings[row.name] = row.value;
	}
	return settings as unknown as InboxSettings;
}

/** Checks a settings change of an admin's request body: known names, known values, nothing else. */
export function parseSettingsChange(body: Record<string, unknown>): Partial<InboxSettings> {
	const change: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(body)) {
		if (!isSettingName(name)) throw new ContractError('INVALID_REQUEST', `unknown setting ${name.slice(0, 64)}`);
		const rule = SETTING_RULES[name];
		const problem = rule.problem ? rule.problem(value) : rule.accepts(value) ? null : `must be ${rule.expected}`;
		if (problem) throw new ContractError('INVALID_REQUEST', `${name} ${problem}`);
		change[name] = value;
	}
	return change as Partial<InboxSettings>;
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

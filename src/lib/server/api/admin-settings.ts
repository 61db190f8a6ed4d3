/** The team's settings for admins (docs/inbox-api.md, "Settings"): read by admins, changed by admins only. */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import type { InboxSettings } from '../../inbox-api/records';
import { recordAudit } from '../audit/record';
import { appendLiveEvent } from '../db/live-events';
import { parseSettingsChange, readSettings, updateSettings } from '../db/settings';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { requireSession, answer, handle } from './event';

/** The change as the audit line keeps it: a structured setting (business hours, targets) as its JSON text. */
const auditDetails = (change: Partial<InboxSettings>) =>
	Object.fromEntries(
		Object.entries(change).map(([name, value]) => [name, typeof value === 'object' && value !== null ? JSON.stringify(value) : value])
	);

export const getSettings = handle(API.getSettings, async (event, inbox) => {
	requireSession(event);
	return answer(API.getSettings, await readSettings(inbox.db));
});

export const patchSettings = handle(API.changeSettings, async (event, inbox) => {
	const { account } = requireSession(event);
	const change = parseSettingsChange(await readJsonObject(event.request, BODY_LIMITS.list));
	await inbox.db.transaction(async (tx) => {
		await updateSettings(tx, change, account, new Date(inbox.now()));
		await recordAudit(tx, { actor: account, action: 'settings.changed', details: auditDetails(change) }, new Date(inbox.now()));
		// every open inbox reads the deadlines' rules again (docs/service-targets.md)
		if ('businessHours' in change || 'serviceTargets' in change)
			await appendLiveEvent(tx, 'settings.changed', null, {}, new Date(inbox.now()));
	});
	inbox.log.info('settings changed', { account: account.accountId, settings: Object.keys(change).join(',') });
	return answer(API.changeSettings, await readSettings(inbox.db));
});

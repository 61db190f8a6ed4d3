/** The team's settings for admins (docs/inbox-api.md, "Settings"): read by admins, changed by admins only. */
import { recordAudit } from '../audit/record';
import { parseSettingsChange, readSettings, updateSettings } from '../db/settings';
import { json, readJsonObject, BODY_LIMITS } from '../http/responses';
import { requireSession, route } from './event';

export const getSettings = route(async (event, inbox) => {
	requireSession(event);
	return json(await readSettings(inbox.db));
});

export const patchSettings = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const change = parseSettingsChange(await readJsonObject(event.request, BODY_LIMITS.fields));
	await inbox.db.transaction(async (tx) => {
		await updateSettings(tx, change, account, new Date(inbox.now()));
		await recordAudit(tx, { actor: account, action: 'settings.changed', details: { ...change } }, new Date(inbox.now()));
	});
	inbox.log.info('settings changed', { account: account.accountId, settings: Object.keys(change).join(',') });
	return json(await readSettings(inbox.db));
});

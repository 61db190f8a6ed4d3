/**
 * Company key and webhook secret rotation for admins (contract 5.1 rule 4, 6.6, 8; docs/inbox-api.md
 * "Administration"). The webhook secret itself never leaves the server.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { companyIdOf } from '../admin/company';
import { companyKeyOverview, confirmRotation, startRotation } from '../admin/company-key';
import { recordAudit } from '../audit/record';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { requireSession, answer, handle } from './event';

export const getCompanyKey = handle(API.getCompanyKey, async (event, inbox) => {
	requireSession(event);
	return answer(API.getCompanyKey, await companyKeyOverview(inbox));
});

export const postCompanyKeyRotation = handle(API.startKeyRotation, async (event, inbox) => {
	requireSession(event);
	await readJsonObject(event.request, BODY_LIMITS.fields);
	return answer(API.startKeyRotation, await startRotation(inbox), 201);
});

export const postCompanyKeyRotationConfirm = handle(API.confirmKeyRotation, async (event, inbox) => {
	const { account } = requireSession(event);
	const rotated = await confirmRotation(inbox, await readJsonObject(event.request, BODY_LIMITS.fields));
	await recordAudit(
		inbox.db,
		{ actor: account, action: 'company_key.rotated', target: `v${rotated.keyVersion}`, details: { fingerprint: rotated.fingerprint } },
		new Date(inbox.now())
	);
	return answer(API.confirmKeyRotation, rotated);
});

export const postWebhookSecretRotation = handle(API.rotateWebhookSecret, async (event, inbox) => {
	const { account } = requireSession(event);
	await readJsonObject(event.request, BODY_LIMITS.fields);
	if (!(await inbox.portal.isSimulator())) {
		throw new ContractError(
			'MANUAL_STEP_REQUIRED',
			'rotate the secret in the service portal, then set SERVICE_WEBHOOK_SECRET to the new secret, SERVICE_WEBHOOK_SECRET_PREVIOUS to the old one and SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL to the end of the overlap the portal gave, and restart'
		);
	}
	const companyId = await companyIdOf(inbox);
	const rotated = await inbox.webhookSecrets.rotate(() => inbox.portal.rotateWebhookSecret(companyId));
	await recordAudit(
		inbox.db,
		{ actor: account, action: 'webhook_secret.rotated', details: { previousValidUntil: rotated.previousValidUntil } },
		new Date(inbox.now())
	);
	inbox.log.info('webhook secret rotated', { by: account.accountId, previousValidUntil: rotated.previousValidUntil });
	return answer(API.rotateWebhookSecret, rotated);
});

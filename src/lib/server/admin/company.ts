/**
 * The company's id at the service, which roster and rotation statements name (contract 6.6, 6.7):
 * `SERVICE_COMPANY_ID`, or else the `companyId` of the newest verified webhook (contract-gaps §9).
 */
import { ContractError } from '../../errors';
import type { InboxConfig } from '../config';
import type { WithDatabase } from '../deps';
import { isId } from '../../crypto/rules';

/** The configuration's part the company's id comes from. */
export interface WithCompanyConfig {
	readonly config: Pick<InboxConfig, 'serviceCompanyId'>;
}

export async function companyIdOf(deps: WithDatabase & WithCompanyConfig): Promise<string> {
	if (deps.config.serviceCompanyId) return deps.config.serviceCompanyId;
	const [row] = await deps.db.query<{ raw_body: string }>('select raw_body from webhook_events order by seq desc limit 1');
	try {
		const companyId = row ? (JSON.parse(row.raw_body) as { companyId?: unknown }).companyId : undefined;
		if (isId(companyId)) return companyId;
	} catch {
		// a stored body is verified JSON; anything else counts as no id
	}
	throw new ContractError(
		'MANUAL_STEP_REQUIRED',
		"the inbox does not know the company's id yet: set SERVICE_COMPANY_ID to the id from the service portal"
	);
}

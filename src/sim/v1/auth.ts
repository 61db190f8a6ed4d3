/**
 * Authentication of requests to `/v1` (contract 5.1, 7.3): `Authorization: Bearer sk_live_…`, then
 * `X-Service-Signature` over `t.METHOD.pathAndQuery.rawBody` keyed with the whole `whsec_…` text,
 * within ±300 s, with the previous secret accepted for 24 h after a rotation.
 */
import { timingSafeEqual } from 'node:crypto';
import {
	ContractError,
	parseSignatureHeader,
	signRequest,
	SIGNATURE_TOLERANCE_SECONDS,
	type ParsedSignatureHeader
} from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { nodeHmacSha256 } from '../hmac';
import { apiKeyHash } from '../ids';
import type { Company } from '../state';

/**
 * The company of `Authorization: Bearer <API key>`, or `401 INVALID_API_KEY`. `Bearer` is spelt as
 * contract 5.1 spells it: `bearer` is refused, although HTTP compares scheme names without case.
 */
export function authenticateApiKey(ctx: SimContext, authorization: string | undefined): Company {
	const match = authorization === undefined ? null : /^Bearer (\S+)$/.exec(authorization);
	if (!match) throw new ContractError('INVALID_API_KEY', 'Authorization must be "Bearer <API key>"');
	const companyId = ctx.store.companyByApiKeyHash.get(apiKeyHash(match[1]));
	const company = companyId === undefined ? undefined : ctx.store.companies.get(companyId);
	if (!company) throw new ContractError('INVALID_API_KEY', 'the API key is not known');
	return company;
}

/** The webhook secrets requests may be signed with now: the current one, and the previous one for 24 h. */
export function acceptedSecrets(ctx: SimContext, company: Company): string[] {
	const previous = company.previousWebhookSecret;
	const previousValid = previous !== null && ctx.clock.nowMs() < previous.validUntilMs;
	return previousValid ? [company.webhookSecret, previous.secret] : [company.webhookSecret];
}

/**
 * Checks `X-Service-Signature`: absent or malformed and any difference in method, path, query or
 * body are `401 INVALID_SIGNATURE`; a timestamp more than 300 s away is `401 SIGNATURE_EXPIRED`.
 * The header is parsed as contract 5.2 step 2 parses a webhook's (parts in any order, spaces
 * trimmed, a repeated key malformed). `t` must be written without leading zeros: the canonical
 * string begins with `t`, and `t=0170…` would otherwise be checked as `170…`, a string the sender
 * may not have signed.
 */
export function verifyRequestSignature(
	ctx: SimContext,
	company: Company,
	request: { header: string | undefined; method: string; pathAndQuery: string; body: Uint8Array }
): void {
	let parsed: ParsedSignatureHeader;
	try {
		parsed = parseSignatureHeader(request.header);
	} catch (error) {
		throw new ContractError('INVALID_SIGNATURE', `X-Service-Signature: ${(error as Error).message}`);
	}
	if (parsed.tText !== String(parsed.t)) {
		throw new ContractError('INVALID_SIGNATURE', 'X-Service-Signature: t must be integer seconds without leading zeros');
	}
	if (Math.abs(ctx.clock.signatureNowSeconds() - parsed.t) > SIGNATURE_TOLERANCE_SECONDS) {
		throw new ContractError('SIGNATURE_EXPIRED', 'the signature timestamp is more than 300 s away from the service clock');
	}
	const received = Buffer.from(parsed.v1, 'hex');
	let matched = false;
	for (const secret of acceptedSecrets(ctx, company)) {
		const { header } = signRequest(
			{ secret, t: parsed.t, method: request.method, pathAndQuery: request.pathAndQuery, body: request.body },
			nodeHmacSha256
		);
		const expected = Buffer.from(header.slice(header.indexOf('v1=') + 3), 'hex');
		// Every accepted secret is checked, so the time does not tell which one matched.
		if (timingSafeEqual(expected, received)) matched = true;
	}
	if (!matched) throw new ContractError('INVALID_SIGNATURE', 'the request signature does not match');
}

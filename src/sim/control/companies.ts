/**
 * Control API for companies (docs/simulator.md; contract 2.1, 2.3, 5.1, 6.6, 6.7): registration
 * with the public keys and webhook URL (the portal's job), webhook secret rotation with 24 h of
 * grace, company key rotation verified with `signing.pub`, the roster apps are served, and a roster
 * the service holds as its latest without having checked it.
 */
import {
	ContractError,
	b64uDecode,
	b64uDecodeLength,
	b64uEncode,
	companyKeyStatement,
	fingerprintDisplay,
	isIntegerIn,
	MAX_KEY_VERSION,
	signStatement,
	verifyRotation,
	type RosterAgent,
	PUBLIC_KEY_BYTES
} from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { API_KEY_RULE, apiKeyHash, newApiKey, newCompanyId, newWebhookSecret, WEBHOOK_SECRET_RULE } from '../ids';
import { isoSeconds } from '../../lib/crypto/index';
import type { Company, CompanyKey, StoredRoster } from '../state';
import { optionalString, requireWebhookUrl, type ControlRoute } from './types';

export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

export function findCompany(ctx: SimContext, companyId: string): Company {
	const company = ctx.store.companies.get(companyId);
	if (!company) throw new ContractError('NOT_FOUND', `no company ${companyId}`);
	return company;
}

function platformSignedKey(ctx: SimContext, companyId: string, keyVersion: number, publicKey: Uint8Array): CompanyKey {
	const statement = companyKeyStatement({ companyId, keyVersion, publicKey });
	return {
		keyVersion,
		publicKey: b64uEncode(publicKey),
		platformSignature: signStatement(statement, b64uDecode(ctx.store.platform.secretKey)),
		activatedAtMs: ctx.clock.nowMs()
	};
}

function keyView(key: CompanyKey) {
	return {
		keyVersion: key.keyVersion,
		publicKey: key.publicKey,
		platformSignature: key.platformSignature,
		activatedAt: isoSeconds(key.activatedAtMs)
	};
}

export function companyView(ctx: SimContext, company: Company) {
	const previous = company.previousWebhookSecret;
	return {
		companyId: company.companyId,
		publicKey: company.currentKey.publicKey,
		keyVersion: company.currentKey.keyVersion,
		platformSignature: company.currentKey.platformSignature,
		platformPublicKey: ctx.store.platform.publicKey,
		fingerprint: fingerprintDisplay(b64uDecode(company.currentKey.publicKey)),
		previousKeys: company.previousKeys.map(keyView),
		signingPublicKey: company.signingPublicKey,
		webhookUrl: company.webhookUrl,
		latestRosterVersion: company.rosters.at(-1)?.rosterVersion ?? null,
		servedRosterOverride: company.servedRosterOverride?.rosterVersion ?? null,
		webhookSecretRotatedAt: company.webhookSecretRotatedAtMs === null ? null : isoSeconds(company.webhookSecretRotatedAtMs),
		previousWebhookSecretValidUntil: previous && previous.validUntilMs > ctx.clock.nowMs() ? isoSeconds(previous.validUntilMs) : null,
		createdAt: isoSeconds(company.createdAtMs)
	};
}

/** `POST /_sim/companies`: what the portal does when a business uploads `public.key` and `signing.pub`. */
const createCompany: ControlRoute['run'] = (ctx, { body }) => {
	const publicKey = b64uDecodeLength(body.publicKey, PUBLIC_KEY_BYTES, 'publicKey');
	const signingPublicKey = b64uDecodeLength(body.signingPublicKey, PUBLIC_KEY_BYTES, 'signingPublicKey');
	const webhookUrl = requireWebhookUrl(body.webhookUrl);
	const keyVersion = body.keyVersion ?? 1;
	if (!isIntegerIn(keyVersion, 1, MAX_KEY_VERSION))
		throw new ContractError('INVALID_INPUT', 'keyVersion must be an integer from 1 to 2^31-1', 400);
	// Fixed credentials let tests replay the public HMAC vectors; otherwise they are random.
	const apiKey = optionalString(body, 'apiKey') ?? newApiKey();
	const webhookSecret = optionalString(body, 'webhookSecret') ?? newWebhookSecret();
	if (!API_KEY_RULE.test(apiKey)) throw new ContractError('INVALID_REQUEST', 'apiKey must be sk_live_ followed by base64url of 32 bytes');
	if (!WEBHOOK_SECRET_RULE.test(webhookSecret))
		throw new ContractError('INVALID_REQUEST', 'webhookSecret must be whsec_ followed by base64url of 32 bytes');
	if (ctx.store.companyByApiKeyHash.has(apiKeyHash(apiKey)))
		throw new ContractError('STATE_CONFLICT', 'this apiKey belongs to another company');
	const companyId = newCompanyId();
	const now = ctx.clock.nowMs();
	const company: Company = {
		companyId,
		apiKeyHash: apiKeyHash(apiKey),
		webhookSecret,
		previousWebhookSecret: null,
		webhookSecretRotatedAtMs: null,
		webhookUrl,
		signingPublicKey: b64uEncode(signingPublicKey),
		currentKey: platformSignedKey(ctx, companyId, keyVersion, publicKey),
		previousKeys: [],
		rosters: [],
		servedRosterOverride: null,
		uploadTimesMs: [],
		createdAtMs: now
	};
	ctx.store.addCompany(company);
	return {
		status: 201,
		body: {
			companyId,
			apiKey,
			webhookSecret,
			platformPublicKey: ctx.store.platform.publicKey,
			keyVersion,
			platformSignature: company.currentKey.platformSignature,
			fingerprint: fingerprintDisplay(publicKey)
		}
	};
};

const getCompany: ControlRoute['run'] = (ctx, { params }) => ({ status: 200, body: companyView(ctx, findCompany(ctx, params.id)) });

const updateCompany: ControlRoute['run'] = (ctx, { body, params }) => {
	const company = findCompany(ctx, params.id);
	company.webhookUrl = requireWebhookUrl(body.webhookUrl);
	ctx.store.changed('companies', company.companyId);
	return { status: 200, body: companyView(ctx, company) };
};

/** A new secret signs webhooks at once; requests signed with the previous one pass for 24 h (contract 8). */
const rotateWebhookSecret: ControlRoute['run'] = (ctx, { params }) => {
	const company = findCompany(ctx, params.id);
	const now = ctx.clock.nowMs();
	company.previousWebhookSecret = { secret: company.webhookSecret, validUntilMs: now + PREVIOUS_SECRET_GRACE_MS };
	company.webhookSecret = newWebhookSecret();
	company.webhookSecretRotatedAtMs = now;
	ctx.store.changed('companies', company.companyId);
	return { status: 200, body: { webhookSecret: company.webhookSecret, previousValidUntil: isoSeconds(now + PREVIOUS_SECRET_GRACE_MS) } };
};

/** Keys and API → Rotate (contract 6.6): the statement must verify with the registered `signing.pub`. */
const rotateCompanyKey: ControlRoute['run'] = (ctx, { body, params }) => {
	const company = findCompany(ctx, params.id);
	const toPublicKey = b64uDecodeLength(body.publicKey, PUBLIC_KEY_BYTES, 'publicKey');
	const current = company.currentKey;
	verifyRotation(
		{
			companyId: company.companyId,
			fromKeyVersion: current.keyVersion,
			fromPublicKey: b64uDecode(current.publicKey),
			toKeyVersion: body.keyVersion as number,
			toPublicKey
		},
		body.rotationSignature,
		b64uDecode(company.signingPublicKey)
	);
	const encoded = b64uEncode(toPublicKey);
	if ([current, ...company.previousKeys].some((key) => key.publicKey === encoded)) {
		throw new ContractError('INVALID_INPUT', 'the new public key was already used by this company', 400);
	}
	company.previousKeys.unshift(current);
	company.currentKey = platformSignedKey(ctx, company.companyId, body.keyVersion as number, toPublicKey);
	ctx.store.changed('companies', company.companyId);
	return { status: 200, body: companyView(ctx, company) };
};

/** A roster of a control request, taken as it is. */
function uncheckedRoster(ctx: SimContext, body: Record<string, unknown>): StoredRoster {
	if (!Array.isArray(body.agents)) throw new ContractError('INVALID_REQUEST', 'agents must be a list');
	return {
		rosterVersion: body.rosterVersion as number,
		issuedAt: body.issuedAt as string,
		agents: body.agents as RosterAgent[],
		signature: body.signature as string,
		storedAtMs: ctx.clock.nowMs()
	};
}

/** Replaces the roster apps are served without any check, as a compromised service would (contract 6.7). */
const serveRoster: ControlRoute['run'] = (ctx, { body, params }) => {
	const company = findCompany(ctx, params.id);
	company.servedRosterOverride = uncheckedRoster(ctx, body);
	ctx.store.changed('companies', company.companyId);
	return { status: 200, body: companyView(ctx, company) };
};

/**
 * Keeps a roster as the latest accepted one without any check, as a broken service would, or one that
 * checked it with a `signing.pub` the inbox no longer has (contract 2.9): it is served, and the next
 * upload must be its version + 1.
 */
const holdRoster: ControlRoute['run'] = (ctx, { body, params }) => {
	const company = findCompany(ctx, params.id);
	if (!isIntegerIn(body.rosterVersion, 1, MAX_KEY_VERSION))
		throw new ContractError('INVALID_REQUEST', 'rosterVersion must be an integer from 1 to 2^31-1');
	company.rosters.push(uncheckedRoster(ctx, body));
	company.servedRosterOverride = null;
	ctx.store.changed('companies', company.companyId);
	return { status: 201, body: companyView(ctx, company) };
};

const stopServingRoster: ControlRoute['run'] = (ctx, { params }) => {
	const company = findCompany(ctx, params.id);
	company.servedRosterOverride = null;
	ctx.store.changed('companies', company.companyId);
	return { status: 200, body: companyView(ctx, company) };
};

export const companyRoutes: [string, string, ControlRoute][] = [
	['POST', '/_sim/companies', { run: createCompany }],
	['GET', '/_sim/companies/:id', { run: getCompany }],
	['PATCH', '/_sim/companies/:id', { run: updateCompany }],
	['POST', '/_sim/companies/:id/webhook-secret/rotate', { run: rotateWebhookSecret }],
	['POST', '/_sim/companies/:id/keys/rotate', { run: rotateCompanyKey }],
	['POST', '/_sim/companies/:id/served-roster', { run: serveRoster }],
	['DELETE', '/_sim/companies/:id/served-roster', { run: stopServingRoster }],
	['POST', '/_sim/companies/:id/held-roster', { run: holdRoster }]
];

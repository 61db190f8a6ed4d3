/**
 * Company key rotation in two steps (contract 2.1, 6.6; docs/inbox-api.md "Administration"): the
 * server makes the new X25519 pair as a pending rotation and hands out the statement; the admin's page
 * signs it with `signing.key`; on confirmation the server verifies the signature with `signing.pub`,
 * enters the key in the simulator's portal (a real portal is the admin's to fill in), promotes the pair
 * (the old one kept as `private.v<N>.key`) and reads the keys again, so `[current, previous, …]` open
 * wraps and new invitation links carry the new fingerprint, without a restart.
 */
import { b64uEncode, ContractError, fingerprintB64u, fingerprintDisplay, rotationStatement, verifyRotation } from '../../crypto/index';
import type { InboxConfig } from '../config';
import type { ServiceDeps } from '../deps';
import type { ServicePortal } from './portal';
import { pendingRotation, promotePendingRotation, type Rotation } from '../keys/files';
import { companyIdOf, type WithCompanyConfig } from './company';
import type { CompanyKey, ConfirmedRotation, PendingRotation } from '../../inbox-api/keys';
import { recordCompanyKey } from '../keys/company-key-state';

function rotationView(companyId: string, rotation: Rotation): PendingRotation {
	return {
		companyId,
		fromKeyVersion: rotation.fromKeyVersion,
		fromPublicKey: b64uEncode(rotation.fromPublicKey),
		toKeyVersion: rotation.toKeyVersion,
		toPublicKey: b64uEncode(rotation.toPublicKey),
		statement: rotationStatement({ companyId, ...rotation })
	};
}

/** What a rotation needs: the key files' directory, the company's id, the portal, the database and the log. */
export type CompanyKeyDeps = ServiceDeps &
	WithCompanyConfig & { readonly config: Pick<InboxConfig, 'keysDir' | 'serviceCompanyId'>; readonly portal: ServicePortal };

export async function companyKeyOverview(deps: CompanyKeyDeps): Promise<CompanyKey> {
	const keys = await deps.companyKeys();
	const pending = await pendingRotation(deps.config.keysDir, { create: false });
	return {
		keyVersion: keys.current.keyVersion,
		publicKey: b64uEncode(keys.current.publicKey),
		fingerprint: fingerprintB64u(keys.current.publicKey),
		fingerprintDisplay: fingerprintDisplay(keys.current.publicKey),
		previousVersions: keys.previous.map((pair) => pair.keyVersion),
		pending: pending ? rotationView(await companyIdOf(deps), pending) : null
	};
}

/** Step 1: the pending pair (made now, or the one already waiting) and the statement to sign. */
export async function startRotation(deps: CompanyKeyDeps): Promise<PendingRotation> {
	const companyId = await companyIdOf(deps);
	const rotation = (await pendingRotation(deps.config.keysDir, { create: true })) as Rotation;
	deps.log.info('company key rotation pending', { toKeyVersion: rotation.toKeyVersion });
	return rotationView(companyId, rotation);
}

/** Step 2: the signed statement makes the pending pair current. */
export async function confirmRotation(deps: CompanyKeyDeps, body: Record<string, unknown>): Promise<ConfirmedRotation> {
	const unknown = Object.keys(body).filter((key) => key !== 'toKeyVersion' && key !== 'rotationSignature');
	if (unknown.length) throw new ContractError('INVALID_REQUEST', `unknown fields: ${unknown.join(', ')}`);
	const companyId = await companyIdOf(deps);
	const rotation = await pendingRotation(deps.config.keysDir, { create: false });
	if (!rotation || body.toKeyVersion !== rotation.toKeyVersion) {
		throw new ContractError(
			'STATE_CONFLICT',
			rotation ? `the pending rotation is to version ${rotation.toKeyVersion}` : 'no rotation is pending'
		);
	}
	verifyRotation({ companyId, ...rotation }, body.rotationSignature, (await deps.companyKeys()).signingPublicKey);
	const rotationSignature = body.rotationSignature as string;
	const entry = { publicKey: b64uEncode(rotation.toPublicKey), keyVersion: rotation.toKeyVersion, rotationSignature };
	const portal = (await deps.portal.isSimulator()) ? 'entered' : 'manual';
	if (portal === 'entered') await deps.portal.enterCompanyKey(companyId, entry);
	await promotePendingRotation(deps.config.keysDir);
	const keys = await deps.companyKeys();
	if (keys.current.keyVersion !== rotation.toKeyVersion) throw new Error('the rotated company keys did not load');
	await recordCompanyKey(deps.db, keys, new Date(deps.now()));
	deps.log.info('company key rotated', { keyVersion: rotation.toKeyVersion, portal });
	return { ...entry, fingerprint: fingerprintB64u(rotation.toPublicKey), portal };
}

/**
 * Company key and webhook secret rotation as the inbox server's admin API carries them (docs/inbox-api.md
 * §12, "Company key rotation" and "Webhook secret rotation"), declared once for the server that builds
 * them and the keys page that reads them. Public values only; types only: nothing here runs.
 */

/** A company key rotation waiting for the admin's signature (step 1, `POST /api/admin/company-key/rotation`). */
export interface PendingRotation {
	companyId: string;
	fromKeyVersion: number;
	fromPublicKey: string;
	toKeyVersion: number;
	toPublicKey: string;
	/** Contract 6.6, built by the server; the page rebuilds it in the worker before signing. */
	statement: string;
}

/** `GET /api/admin/company-key`. */
export interface CompanyKey {
	keyVersion: number;
	publicKey: string;
	/** b64u (contract 2.2). */
	fingerprint: string;
	/** The fingerprint's display form (contract 2.2). */
	fingerprintDisplay: string;
	previousVersions: number[];
	pending: PendingRotation | null;
}

/** The body of `POST /api/admin/company-key/rotation/confirm` (step 2). */
export interface RotationConfirmation {
	toKeyVersion: number;
	/** The admin's signature of the pending rotation's statement with `signing.key`. */
	rotationSignature: string;
}

/** The answer to step 2: the key now current, as the portal takes it. */
export interface ConfirmedRotation {
	keyVersion: number;
	publicKey: string;
	/** b64u (contract 2.2). */
	fingerprint: string;
	rotationSignature: string;
	/** `entered`: the server entered it in the (simulated) portal; `manual`: the admin must. */
	portal: 'entered' | 'manual';
}

/** The answer to `POST /api/admin/webhook-secret/rotation`: never the secret itself. */
export interface WebhookSecretRotation {
	rotatedAt: string;
	previousValidUntil: string;
}

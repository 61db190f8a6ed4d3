/**
 * Plain sentences for what an admin may meet (docs/inbox-api.md, administration): a refused
 * roster or signature, an expired invitation, a secret the server will not take, a step to do by hand.
 * Everything else is said as for agents (explain.ts); the page shows the code beside the sentence.
 */
import { ContractError } from '../errors';
import { explainError } from './explain';

const ADMIN_PROBLEMS: Record<string, string> = {
	ROSTER_VERSION_CONFLICT:
		'Another roster was accepted since this page prepared this one (a stale version). Nothing was uploaded: reload and sign the new draft.',
	SIGNATURE_INVALID: "The signature does not verify with the company's signing.pub. Nothing was uploaded or changed.",
	SECRET_REFUSED: 'The server refuses to receive a signing secret. It must stay in your browser; nothing was stored.',
	INVITATION_EXPIRED: 'This invitation has expired or was already used. Ask an admin for a new one.',
	ALREADY_EXISTS: 'That username is taken: choose another. The invitation still works.',
	MANUAL_STEP_REQUIRED: 'The service is not the simulator: this step must be done by hand in the service portal (see the README).',
	AGENT_NOT_IN_ROSTER: 'That agent is not in the current roster; sign a roster that contains them first.',
	FORBIDDEN: 'This page is for admins only.',
	LOCKED: 'The signing key is locked in this browser. Unlock it with its passphrase, then try again.',
	KEY_NOT_FOUND: 'No signing key is stored in this browser yet. Import signing.key first.'
};

export function explainAdminError(error: unknown): string {
	if (error instanceof ContractError && ADMIN_PROBLEMS[error.code]) return ADMIN_PROBLEMS[error.code];
	return explainError(error);
}

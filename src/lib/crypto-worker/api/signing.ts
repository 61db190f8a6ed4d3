/**
 * The signing part of the crypto worker's API (contract 6.6, 6.7): the agent roster and company key
 * rotation statements, signed with the admin's `signing.key` behind a handle, and the checks anyone can
 * make with `signing.pub`.
 */
import { b64uDecode } from '../../crypto/encoding';
import { rosterStatement, verifyRoster, type RosterInput } from '../../crypto/roster';
import { verifyRotation, type RotationText } from '../../crypto/signatures';
import { signRosterStatement, signRotationStatement } from '../signing';
import type { SignedStatement } from '../types';
import type { WorkerState } from './state';

/** A statement's fields with the signature to check and the `signing.pub` (b64u) to check it with. */
type Signed<T> = T & { signature: string; signingPublicKey: string };

export interface SigningApi {
	/** Signs the agent roster statement (contract 6.7) with the signing key behind `handle`. */
	signRoster(handle: string, roster: RosterInput): Promise<SignedStatement>;
	/** Signs the company key rotation statement (contract 6.6) with the signing key behind `handle`. */
	signRotation(handle: string, rotation: RotationText): Promise<SignedStatement>;
	/** The exact roster statement (contract 6.7) the page shows before signing. */
	rosterStatement(roster: RosterInput): Promise<string>;
	/** Throws SIGNATURE_INVALID unless the roster's signature verifies with `signingPublicKey` (contract 6.7). */
	verifyRoster(input: Signed<RosterInput>): Promise<void>;
	/** Throws SIGNATURE_INVALID unless the rotation statement's signature verifies (contract 6.6). */
	verifyRotation(input: Signed<RotationText>): Promise<void>;
}

export function createSigningApi(state: WorkerState): SigningApi {
	const { session } = state;
	return {
		signRoster: (handle, roster) => state.run(() => signRosterStatement(session.require(handle, 'signing'), roster)),
		signRotation: (handle, rotation) => state.run(() => signRotationStatement(session.require(handle, 'signing'), rotation)),
		rosterStatement: (roster) => state.run(() => rosterStatement(roster)),
		verifyRoster: (input) => state.run(() => verifyRoster(input, b64uDecode(input.signingPublicKey, 'signingPublicKey'))),
		verifyRotation: (input) =>
			state.run(() =>
				verifyRotation(
					{
						companyId: input.companyId,
						fromKeyVersion: input.fromKeyVersion,
						fromPublicKey: b64uDecode(input.fromPublicKey, 'fromPublicKey'),
						toKeyVersion: input.toKeyVersion,
						toPublicKey: b64uDecode(input.toPublicKey, 'toPublicKey')
					},
					input.signature,
					b64uDecode(input.signingPublicKey, 'signingPublicKey')
				)
			)
	};
}

/**
 * Signing with the admin's key handle (contract 6.6, 6.7): the roster statement and the company key
 * rotation statement are built and validated by the core, then signed with `signing.key`, which
 * never leaves the worker.
 */
import { b64uDecodeLength, b64uEncode } from '../crypto/encoding';
import { rosterStatement, type RosterInput } from '../crypto/roster';
import { rotationStatement, signStatement, type RotationText } from '../crypto/signatures';
import type { HeldKey } from './session';
import type { SignedStatement } from './types';

function signed(statement: string, key: HeldKey): SignedStatement {
	return { statement, signature: signStatement(statement, key.secretKey), signingPublicKey: b64uEncode(key.publicKey) };
}

/** Validates the roster (`INVALID_INPUT`), builds its statement with agents sorted, and signs it. */
export function signRosterStatement(key: HeldKey, roster: RosterInput): SignedStatement {
	return signed(rosterStatement(roster), key);
}

/** Builds the rotation statement (`toKeyVersion` > `fromKeyVersion`, 32-byte keys) and signs it. */
export function signRotationStatement(key: HeldKey, rotation: RotationText): SignedStatement {
	const statement = rotationStatement({
		companyId: rotation?.companyId,
		fromKeyVersion: rotation?.fromKeyVersion,
		fromPublicKey: b64uDecodeLength(rotation?.fromPublicKey, 32, 'fromPublicKey'),
		// Stryker disable next-line OptionalChaining: equivalent: without a rotation, decoding fromPublicKey just before has failed already
		toKeyVersion: rotation?.toKeyVersion,
		// Stryker disable next-line OptionalChaining: equivalent: without a rotation, decoding fromPublicKey before has failed already
		toPublicKey: b64uDecodeLength(rotation?.toPublicKey, 32, 'toPublicKey')
	});
	return signed(statement, key);
}

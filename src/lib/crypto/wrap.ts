/**
 * Conversation key wraps (contract 2.4, 6.1, 6.7): the `SCK1` payload sealed for the user, the
 * company or an agent, and `openConversationKey` with its ordered checks, trying several company
 * keys `[current, previous, …]` and moving on only on `DECRYPT_FAILED`.
 */
import { ContractError, fail } from '../errors';
import { b64uDecode, b64uEncode, concatBytes, readU32be, u32be, utf8Decode, utf8Encode } from './encoding';
import type { X25519KeyPair } from './keys';
import { KEY_BYTES, requireBytes, requireId, requireKeyVersion } from './rules';
import { sodium } from './sodium';

export interface Wrap {
	keyVersion: number;
	/** b64u of the sealed box. */
	sealed: string;
}

const MAGIC = utf8Encode('SCK1');
/** "SCK1" ‖ u32be(keyVersion) ‖ K(32), before the conversation id. */
const PAYLOAD_HEADER_BYTES = 40;

/** `"SCK1" ‖ u32be(keyVersion) ‖ K ‖ UTF8(conversationId)`. */
export function wrapPayload(conversationKey: Uint8Array, conversationId: string, keyVersion: number): Uint8Array {
	requireBytes(conversationKey, KEY_BYTES, 'conversation key');
	requireId(conversationId, 'conversationId');
	requireKeyVersion(keyVersion);
	return concatBytes(MAGIC, u32be(keyVersion), conversationKey, utf8Encode(conversationId));
}

/** Seals K for a recipient's X25519 public key (user, company or agent). */
export function sealConversationKey(input: {
	conversationKey: Uint8Array;
	conversationId: string;
	keyVersion: number;
	recipientPublicKey: Uint8Array;
}): Wrap {
	requireBytes(input.recipientPublicKey, 32, 'recipient public key');
	const payload = wrapPayload(input.conversationKey, input.conversationId, input.keyVersion);
	const sealed = sodium().crypto_box_seal(payload, input.recipientPublicKey);
	payload.fill(0);
	return { keyVersion: input.keyVersion, sealed: b64uEncode(sealed) };
}

/** The byte length of `sealed` for a conversation id (shape check without a key). */
export function sealedWrapLength(conversationId: string): number {
	return 48 + PAYLOAD_HEADER_BYTES + utf8Encode(conversationId).length;
}

function openWithKey(sealed: Uint8Array, keyPair: X25519KeyPair): Uint8Array {
	try {
		return sodium().crypto_box_seal_open(sealed, keyPair.publicKey, keyPair.secretKey);
	} catch {
		return fail('DECRYPT_FAILED', 'the wrap does not open with this key');
	}
}

/**
 * Opens a wrap (contract 6.1). `conversationId` comes from the event or the request, never from
 * the payload. With several keys, only `DECRYPT_FAILED` moves on to the next one.
 */
export function openConversationKey(wrap: unknown, conversationId: string, keyPairs: readonly X25519KeyPair[]): Uint8Array {
	requireId(conversationId, 'conversationId');
	const candidate = (wrap ?? {}) as Partial<Wrap>;
	const keyVersion = requireKeyVersion(candidate.keyVersion, 'wrap keyVersion');
	const sealed = b64uDecode(candidate.sealed, 'wrap sealed');
	if (keyPairs.length === 0) fail('DECRYPT_FAILED', 'no key to open the wrap with');
	for (const keyPair of keyPairs) {
		requireBytes(keyPair.publicKey, 32, 'recipient public key');
		requireBytes(keyPair.secretKey, 32, 'recipient secret key');
	}

	let lastError: ContractError | undefined;
	for (const keyPair of keyPairs) {
		let payload: Uint8Array;
		try {
			payload = openWithKey(sealed, keyPair);
		} catch (error) {
			lastError = error as ContractError;
			continue;
		}
		try {
			return checkPayload(payload, keyVersion, conversationId);
			// Stryker disable next-line all: equivalent: wipes this call's own payload, which nothing reads afterwards
		} finally {
			payload.fill(0);
		}
	}
	throw lastError;
}

function checkPayload(payload: Uint8Array, keyVersion: number, conversationId: string): Uint8Array {
	if (payload.length < PAYLOAD_HEADER_BYTES + 1 || !MAGIC.every((byte, i) => payload[i] === byte)) {
		fail('KEY_MISMATCH', 'the wrap payload is not SCK1');
	}
	if (readU32be(payload, 4) !== keyVersion) fail('KEY_MISMATCH', 'the wrap payload names another keyVersion');
	let payloadConversationId: string;
	try {
		payloadConversationId = utf8Decode(payload.subarray(PAYLOAD_HEADER_BYTES));
	} catch {
		return fail('KEY_MISMATCH', 'the wrap payload conversation id is not UTF-8');
	}
	if (payloadConversationId !== conversationId) fail('KEY_MISMATCH', 'the wrap belongs to another conversation');
	return payload.slice(8, PAYLOAD_HEADER_BYTES);
}

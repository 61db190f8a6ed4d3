/**
 * A customer's profile written with the invitation, before the conversation key exists
 * (docs/private-records.md "Profiles written with an invitation"; not a contract format): the browser
 * seals `"Inbox|v1|pending-profile|" + conversationId + "|" + authorId + "\n" + text` to the company's
 * X25519 public key (libsodium sealed box); when the conversation starts the server opens it, checks
 * that the first line names this conversation and author, and stores the text as an `in1` profile.
 */
import { fail } from '../errors';
import { b64uDecode, b64uEncode, utf8Decode, utf8Encode } from './encoding';
import type { X25519KeyPair } from './keys';
import { PUBLIC_KEY_BYTES, requireBytes, requireId } from './rules';
import { sodium } from './sodium';

const PREFIX = 'Inbox|v1|pending-profile|';
/** A profile's text is at most 4,100 characters of JSON: far below this. */
const MAX_SEALED_BYTES = 64 * 1024;

function header(conversationId: string, authorId: string): string {
	return `${PREFIX}${requireId(conversationId, 'conversationId')}|${requireId(authorId, 'authorId')}\n`;
}

export function sealPendingProfile(input: {
	conversationId: string;
	authorId: string;
	text: string;
	companyPublicKey: Uint8Array;
}): string {
	requireBytes(input.companyPublicKey, PUBLIC_KEY_BYTES, 'company public key');
	const plaintext = utf8Encode(header(input.conversationId, input.authorId) + input.text, 'profile');
	try {
		return b64uEncode(sodium().crypto_box_seal(plaintext, input.companyPublicKey));
		// Stryker disable next-line all: equivalent: wipes this call's own plaintext, which nothing reads afterwards
	} finally {
		plaintext.fill(0);
	}
}

/** The profile's text; `DECRYPT_FAILED` when no key opens it or it names another conversation or author. */
export function openPendingProfile(
	sealed: string,
	place: { conversationId: string; authorId: string },
	keyPairs: readonly X25519KeyPair[]
): string {
	const bytes = b64uDecode(sealed, 'sealed profile');
	if (bytes.length > MAX_SEALED_BYTES) fail('INVALID_INPUT', 'the sealed profile is too long');
	for (const keyPair of keyPairs) {
		let opened: Uint8Array;
		try {
			opened = sodium().crypto_box_seal_open(bytes, keyPair.publicKey, keyPair.secretKey);
		} catch {
			continue;
		}
		const text = utf8Decode(opened, 'profile');
		opened.fill(0);
		const expected = header(place.conversationId, place.authorId);
		if (!text.startsWith(expected)) fail('DECRYPT_FAILED', 'the sealed profile belongs to another conversation or author');
		return text.slice(expected.length);
	}
	return fail('DECRYPT_FAILED', 'no company key opens the sealed profile');
}

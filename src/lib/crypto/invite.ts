/**
 * Invitation secrets and bindings (contract 6.3, 6.4): the 32-byte secret, the link
 * `<inviteUrl>#s=…&fp=…`, the keyed BLAKE2b-256 binding tag and its constant-time check.
 */
import { fail } from '../errors';
import { b64uDecode, b64uEncode, constantTimeEqual, utf8Encode } from './encoding';
import { fingerprintB64u } from './keys';
import { DIGEST_BYTES, DOMAIN, KEY_BYTES, requireBytes, requireId, requireKeyVersion, PUBLIC_KEY_BYTES } from './rules';
import { sodium } from './sodium';
import type { Wrap } from './wrap';

export function generateInviteSecret(): Uint8Array {
	return sodium().randombytes_buf(KEY_BYTES);
}

/** `<inviteUrl>#s=<b64u(inviteSecret)>&fp=<b64u(fingerprint of the current company key)>`. */
export function buildInviteLink(inviteUrl: string, inviteSecret: Uint8Array, companyPublicKey: Uint8Array): string {
	if (typeof inviteUrl !== 'string' || inviteUrl === '' || inviteUrl.includes('#')) {
		fail('INVALID_INPUT', 'inviteUrl must be a URL without a fragment');
	}
	requireBytes(inviteSecret, KEY_BYTES, 'invite secret');
	return `${inviteUrl}#s=${b64uEncode(inviteSecret)}&fp=${fingerprintB64u(companyPublicKey)}`;
}

/** The secret and fingerprint carried in a link's fragment, strictly decoded. */
export function parseInviteLinkFragment(link: string): { inviteUrl: string; inviteSecret: Uint8Array; fingerprint: Uint8Array } {
	const hash = link.indexOf('#');
	if (hash < 0) fail('INVALID_INPUT', 'the invitation link has no fragment');
	const params = new Map<string, string>();
	for (const part of link.slice(hash + 1).split('&')) {
		const equals = part.indexOf('=');
		if (equals >= 1) params.set(part.slice(0, equals), part.slice(equals + 1)); // a key of one character or more, then =
	}
	const secret = b64uDecode(params.get('s'), 'invite secret');
	const fp = b64uDecode(params.get('fp'), 'fingerprint');
	if (secret.length !== KEY_BYTES || fp.length !== DIGEST_BYTES) fail('INVALID_INPUT', 'the invitation link fragment is malformed');
	return { inviteUrl: link.slice(0, hash), inviteSecret: secret, fingerprint: fp };
}

export interface InviteBindingInput {
	inviteSecret: Uint8Array;
	conversationId: string;
	userPublicKey: Uint8Array;
	/** `data.conversationKey` of `conversation.started`, with `sealed` used as received. */
	wrapForCompany: Wrap;
}

/** `"Service|v1|invite-binding|" + conversationId + "|" + b64u(userPublicKey) + "|" + keyVersion + "|" + sealed`. */
export function inviteBindingMessage(input: Omit<InviteBindingInput, 'inviteSecret'>): string {
	requireId(input.conversationId, 'conversationId');
	requireBytes(input.userPublicKey, PUBLIC_KEY_BYTES, 'userPublicKey');
	const keyVersion = requireKeyVersion(input.wrapForCompany?.keyVersion, 'wrapForCompany keyVersion');
	if (typeof input.wrapForCompany.sealed !== 'string') fail('INVALID_INPUT', 'wrapForCompany sealed must be a string');
	return `${DOMAIN}|invite-binding|${input.conversationId}|${b64uEncode(input.userPublicKey)}|${keyVersion}|${input.wrapForCompany.sealed}`;
}

/** `BLAKE2b-256(key = inviteSecret, msg = UTF8(msg))`, 32 bytes. */
export function computeInviteBinding(input: InviteBindingInput): Uint8Array {
	requireBytes(input.inviteSecret, KEY_BYTES, 'invite secret');
	return sodium().crypto_generichash(32, utf8Encode(inviteBindingMessage(input)), input.inviteSecret);
}

/**
 * Compares `data.inviteBinding` with the tag in constant time; a mismatch, or a binding that is not
 * 32 bytes of strict base64url, is `BINDING_INVALID` (the user's key was substituted).
 */
export function verifyInviteBinding(inviteBinding: unknown, input: InviteBindingInput): void {
	const expected = computeInviteBinding(input);
	let received: Uint8Array;
	try {
		// Stryker disable next-line all: equivalent: the catch below replaces the decoding's message with its own
		received = b64uDecode(inviteBinding, 'inviteBinding');
	} catch {
		return fail('BINDING_INVALID', 'inviteBinding is not base64url');
	}
	if (!constantTimeEqual(received, expected)) fail('BINDING_INVALID', "the user's key is not bound to the invitation");
}

/**
 * What the page holds of an attachment (docs/crypto-worker.md, "Parallel chunks"): the meta's public
 * fields and `ref`, the whole meta sealed under a key that exists only in this worker's memory. F,
 * the nonce base and the digest never reach the page; the worker opens `ref` to download the file or
 * to encrypt the attachment message. The key is replaced at every lock, so a reference from before a
 * lock no longer opens.
 */
import { validateAttachmentMeta, type AttachmentMeta } from '../crypto/attachment-meta';
import { b64uDecode, b64uEncode, utf8Decode, utf8Encode } from '../crypto/encoding';
import { NONCE_BYTES } from '../crypto/rules';
import { sodium } from '../crypto/sodium';
import { fail } from '../errors';
import type { AttachmentInfo } from './types';

const REF_AD = 'inbox-attachment-ref|v1';

export class AttachmentRefs {
	private key: Uint8Array | undefined;

	private currentKey(): Uint8Array {
		return (this.key ??= sodium().crypto_aead_xchacha20poly1305_ietf_keygen());
	}

	/** The meta's public fields and its sealed reference, for the page. */
	seal(meta: AttachmentMeta): AttachmentInfo {
		const nonce = sodium().randombytes_buf(NONCE_BYTES);
		const sealed = sodium().crypto_aead_xchacha20poly1305_ietf_encrypt(
			utf8Encode(JSON.stringify(meta)),
			REF_AD,
			null,
			nonce,
			this.currentKey()
		);
		const { key: _key, nonce: _nonce, digest: _digest, ...visible } = meta;
		return { ...visible, ref: b64uEncode(nonce) + '.' + b64uEncode(sealed) };
	}

	/** The whole meta behind a page's reference; `LOCKED` when it is from before a lock (or not ours). */
	open(ref: unknown): AttachmentMeta {
		const [nonce, sealed, extra] = typeof ref === 'string' ? ref.split('.') : [];
		let plain: Uint8Array | undefined;
		if (this.key && nonce && sealed && extra === undefined) {
			try {
				plain = sodium().crypto_aead_xchacha20poly1305_ietf_decrypt(null, b64uDecode(sealed), REF_AD, b64uDecode(nonce), this.key);
			} catch {
				plain = undefined;
			}
		}
		if (!plain) fail('LOCKED', 'the attachment was read before the key store was locked: open the conversation again');
		return validateAttachmentMeta(JSON.parse(utf8Decode(plain)));
	}

	/** Wipes the key: every reference handed out so far stops opening. */
	forget(): void {
		this.key?.fill(0);
		this.key = undefined;
	}
}

/** A full meta as given (tests, the development harness), or the one behind a page's reference. */
export function metaOf(refs: AttachmentRefs, meta: unknown): AttachmentMeta {
	const candidate = meta as { ref?: unknown } | null;
	return typeof candidate === 'object' && candidate !== null && 'ref' in candidate
		? refs.open(candidate.ref)
		: validateAttachmentMeta(meta);
}

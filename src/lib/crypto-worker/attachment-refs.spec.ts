import { beforeAll, describe, expect, it } from 'vitest';
import { buildAttachmentMeta, encryptAttachment } from '../crypto/attachment';
import type { AttachmentMeta } from '../crypto/attachment-meta';
import { initCrypto } from '../crypto/sodium';
import { codeOfCall } from '$test-support/error-codes';
import { AttachmentRefs, metaOf } from './attachment-refs';

let meta: AttachmentMeta;

beforeAll(async () => {
	await initCrypto();
	const attachmentId = 'att_refsSpec000001';
	meta = buildAttachmentMeta({
		attachmentId,
		name: 'scan.pdf',
		mime: 'application/pdf',
		size: 3,
		caption: 'the scan',
		encryption: encryptAttachment(new Uint8Array([1, 2, 3]), { attachmentId })
	});
});

describe('attachment references', () => {
	it('give the page the public fields and a sealed reference, never F, the nonce base or the digest', () => {
		const refs = new AttachmentRefs();
		const info = refs.seal(meta);
		expect(info).toEqual({
			v: 1,
			kind: 'attachment',
			attachmentId: meta.attachmentId,
			name: 'scan.pdf',
			mime: 'application/pdf',
			size: 3,
			chunkSize: 65_536,
			caption: 'the scan',
			ref: expect.stringMatching(/^[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]+$/)
		});
		for (const secret of [meta.key, meta.nonce, meta.digest]) expect(JSON.stringify(info)).not.toContain(secret);
		expect(refs.open(info.ref)).toEqual(meta);
		expect(metaOf(refs, info)).toEqual(meta);
		expect(metaOf(refs, meta)).toEqual(meta);
		expect(refs.seal(meta).ref).not.toBe(info.ref);
	});

	it('stop opening after a lock, in another worker, or altered, with LOCKED', () => {
		const refs = new AttachmentRefs();
		const { ref } = refs.seal(meta);
		const [nonce, sealed] = ref.split('.');
		expect(codeOfCall(() => new AttachmentRefs().open(ref))).toBe('LOCKED');
		const flipped = sealed.startsWith('A') ? 'B' + sealed.slice(1) : 'A' + sealed.slice(1);
		for (const bad of [`${nonce}.${flipped}`, `${nonce}.${sealed}.x`, nonce, 'x.y', 42, undefined])
			expect(codeOfCall(() => refs.open(bad))).toBe('LOCKED');
		refs.forget();
		expect(() => refs.open(ref)).toThrow('the attachment was read before the key store was locked: open the conversation again');
		expect(refs.open(refs.seal(meta).ref)).toEqual(meta);
		expect(codeOfCall(() => metaOf(refs, { ...meta, name: '../x' }))).toBe('INVALID_INPUT');
	});
});

/**
 * Attachments through the page's crypto worker client, for the worker tests (docs/crypto-worker.md
 * "Parallel chunks"): a download decrypted as it streams, with the frames the page rendered meanwhile
 * and the progress it saw, and bytes encrypted as a File.
 */
import { b64uDecode, b64uEncode, hexEncode } from '../../../src/lib/crypto/encoding';
import type { CryptoWorkerClient } from '../../../src/lib/crypto-worker/client';
import { attempt } from './attempt';

async function sha256Hex(data: ArrayBuffer): Promise<string> {
	return hexEncode(new Uint8Array(await crypto.subtle.digest('SHA-256', data)));
}

export function attachmentHelpers(client: CryptoWorkerClient, frames: () => number) {
	return {
		/**
		 * Fetches `url` and decrypts it through the streamed path, counting frames and progress. With
		 * `digest: false` the Blob is not read back (the benchmark measures memory without that copy).
		 */
		async decryptFromUrl(url: string, meta: unknown, options: { ciphertextSize?: number; digest?: boolean } = {}) {
			const progress: Array<{ done: number; total: number; frame: number }> = [];
			const framesBefore = frames();
			const started = performance.now();
			const outcome = await attempt(async () =>
				client.decryptAttachmentStream(await fetch(url), meta, {
					ciphertextSize: options.ciphertextSize,
					onProgress: (p) => progress.push({ ...p, frame: frames() })
				})
			);
			const milliseconds = performance.now() - started;
			const framesDuring = frames() - framesBefore;
			if (!outcome.ok) return { ...outcome, progress, framesDuring, milliseconds };
			const { blob } = outcome.value;
			const sha256 = options.digest === false ? undefined : await sha256Hex(await blob.arrayBuffer());
			return { ok: true as const, size: blob.size, type: blob.type, sha256, progress, framesDuring, milliseconds };
		},
		/** Encrypts `b64u` bytes as a File in the worker; returns the ciphertext (b64u), the meta and the progress seen. */
		async encryptBytes(bytes: string, fileName: string, type: string, details: { attachmentId: string; name?: string; mime?: string }) {
			const progress: Array<{ done: number; total: number }> = [];
			const file = new File([b64uDecode(bytes) as Uint8Array<ArrayBuffer>], fileName, { type });
			const outcome = await attempt(() => client.encryptAttachment(file, details, { onProgress: (p) => progress.push(p) }));
			if (!outcome.ok) return { ...outcome, progress };
			const { ciphertext, meta } = outcome.value;
			return {
				ok: true as const,
				isArrayBuffer: ciphertext instanceof ArrayBuffer,
				ciphertext: b64uEncode(new Uint8Array(ciphertext)),
				meta,
				progress
			};
		}
	};
}

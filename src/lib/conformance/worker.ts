/**
 * The conformance interface (contract 9.1) served by the worker: the core's implementation, its
 * attachments through the chunk workers as the inbox's worker does them, with byte results
 * transferred to the page instead of copied, so the page runs the same vector runner against the
 * worker that Node runs against the core.
 */
import { transfer } from 'comlink';
import { browserChunkWorkerPool, chunkWorkerCount } from '../crypto-worker/pipeline/browser-workers';
import { coreImplementation, withAttachmentPipeline, type ConformanceImplementation } from './implementation';

export function workerConformance(): ConformanceImplementation {
	const core = withAttachmentPipeline(coreImplementation(), browserChunkWorkerPool(chunkWorkerCount(navigator.hardwareConcurrency)));
	return {
		...core,
		async encryptAttachment(input) {
			const result = await core.encryptAttachment(input);
			return transfer(result, [result.ciphertext.buffer]);
		},
		async decryptAttachment(input) {
			const plaintext = await core.decryptAttachment(input);
			return transfer(plaintext, [plaintext.buffer]);
		}
	};
}

/**
 * A worker for the development harness only (/dev/crypto; contract 9.1): the vectors' interface of
 * the core, whose methods take raw secret keys from the page. The inbox's own worker (entry.ts) never
 * exposes it — it works with handles — so the production bundle holds none of this. Its attachment
 * pipeline starts chunk workers from this same script (docs/crypto-worker.md, "Parallel chunks"), which
 * then serves the chunk role.
 */
import { expose } from 'comlink';
import { workerConformance } from './worker';
import { CHUNK_WORKER_NAME, serveChunkWorker } from '../crypto-worker/pipeline/chunk-worker-entry';
import { installTransferHandlers } from '../crypto-worker/transfer';

declare const self: DedicatedWorkerGlobalScope;

if (self.name === CHUNK_WORKER_NAME) serveChunkWorker(self);
else {
	installTransferHandlers();
	expose(workerConformance());
}

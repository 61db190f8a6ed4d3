/**
 * The crypto worker's script, for both of its roles (docs/crypto-worker.md): the crypto worker, a module
 * Worker exposing the API of api/ through comlink with the transfer handler that keeps `ContractError`
 * codes; or, started again by the crypto worker under `CHUNK_WORKER_NAME`, one of its chunk workers.
 */
import { expose } from 'comlink';
import { createWorkerApi } from './api';
import { CHUNK_WORKER_NAME, serveChunkWorker } from './pipeline/chunk-worker-entry';
import { installTransferHandlers } from './transfer';

declare const self: DedicatedWorkerGlobalScope;

if (self.name === CHUNK_WORKER_NAME) serveChunkWorker(self);
else {
	installTransferHandlers();
	expose(createWorkerApi());
}

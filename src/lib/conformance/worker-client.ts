/**
 * The page's side of the conformance worker (worker-entry.ts), for the development harness only:
 * the vectors' interface (contract 9.1) run in a worker, as the inbox's crypto runs.
 */
import { wrap } from 'comlink';
import type { ConformanceImplementation } from './implementation';
import { installTransferHandlers } from '../crypto-worker/transfer';

export function createConformanceWorker(): ConformanceImplementation {
	installTransferHandlers();
	const worker = new Worker(new URL('./worker-entry.ts', import.meta.url), { type: 'module', name: 'inbox-conformance' });
	return wrap<ConformanceImplementation>(worker) as unknown as ConformanceImplementation;
}

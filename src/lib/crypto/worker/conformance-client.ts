/**
 * The page's side of the conformance worker (conformance-entry.ts), for the development harness only:
 * the vectors' interface (contract 9.1) run in a worker, as the inbox's crypto runs.
 */
import { wrap } from 'comlink';
import type { ConformanceImplementation } from '../vectors/implementation';
import { installTransferHandlers } from './transfer';

export function createConformanceWorker(): ConformanceImplementation {
	installTransferHandlers();
	const worker = new Worker(new URL('./conformance-entry.ts', import.meta.url), { type: 'module', name: 'inbox-conformance' });
	return wrap<ConformanceImplementation>(worker) as unknown as ConformanceImplementation;
}

/**
 * A worker for the development harness only (/dev/crypto; contract 9.1): the vectors' interface of
 * the core, whose methods take raw secret keys from the page. The inbox's own worker (entry.ts) never
 * exposes it — it works with handles — so the production bundle holds none of this.
 */
import { expose } from 'comlink';
import { workerConformance } from './worker';
import { installTransferHandlers } from '../crypto-worker/transfer';

installTransferHandlers();
expose(workerConformance());

/**
 * The crypto worker: a module Worker exposing the API of api/ through comlink, with
 * the transfer handler that keeps `ContractError` codes.
 */
import { expose } from 'comlink';
import { createWorkerApi } from './api';
import { installTransferHandlers } from './transfer';

installTransferHandlers();
expose(createWorkerApi());

/**
 * Comlink transfer handler for thrown values, installed on both sides of the worker boundary: a
 * `ContractError` arrives as a `ContractError` with its contract code (7.1) and status,
 * where comlink's default would keep only the message.
 */
import { transferHandlers, type TransferHandler } from 'comlink';
import { ContractError, type ContractCode } from '../errors';

/** What comlink hands the `throw` handler: the thrown value, wrapped. */
interface Thrown {
	value: unknown;
}

type SerializedThrow =
	| { kind: 'contract'; code: ContractCode; message: string; status?: number }
	| { kind: 'error'; name: string; message: string; stack?: string }
	| { kind: 'value'; value: unknown };

/** Plain data for a thrown value; exported for tests. */
export function serializeThrown(value: unknown): SerializedThrow {
	if (value instanceof ContractError) return { kind: 'contract', ...value.toJSON() };
	if (value instanceof Error) return { kind: 'error', name: value.name, message: value.message, stack: value.stack };
	try {
		return { kind: 'value', value: structuredClone(value) };
	} catch {
		return { kind: 'error', name: 'Error', message: String(value) };
	}
}

/** The error to throw on the receiving side. */
export function deserializeThrown(serialized: SerializedThrow): unknown {
	switch (serialized.kind) {
		case 'contract':
			return ContractError.fromJSON(serialized);
		case 'error':
			return Object.assign(new Error(serialized.message), { name: serialized.name, stack: serialized.stack });
		default:
			return serialized.value;
	}
}

let installed = false;

/** Replaces comlink's `throw` handler; idempotent. Call it before `expose` or `wrap`. */
export function installTransferHandlers(): void {
	if (installed) return;
	const original = transferHandlers.get('throw');
	if (!original) throw new Error('comlink has no throw handler to replace');
	const handler: TransferHandler<Thrown, SerializedThrow> = {
		// comlink marks thrown values with a private symbol; its own handler knows how to recognise them.
		canHandle: (value: unknown): value is Thrown => original.canHandle(value),
		serialize: ({ value }) => [serializeThrown(value), []],
		deserialize: (serialized) => {
			throw deserializeThrown(serialized);
		}
	};
	transferHandlers.set('throw', handler);
	installed = true;
}

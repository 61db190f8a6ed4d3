/** Shared by the core's specs: the code of a call's ContractError, or 'no error'. */
import { codeOf } from '../errors';

export function codeOfCall(call: () => unknown): string | undefined {
	try {
		call();
	} catch (error) {
		return codeOf(error) ?? `not a ContractError: ${String(error)}`;
	}
	return 'no error';
}

/** The code of what an async call rejects with, `'no error'` if it resolves. */
export async function codeOfAsyncCall(call: () => Promise<unknown>): Promise<string | undefined> {
	try {
		await call();
	} catch (error) {
		return codeOf(error) ?? `not a ContractError: ${String(error)}`;
	}
	return 'no error';
}

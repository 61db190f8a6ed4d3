/** What a call threw, by its contract code (src/lib/errors.ts), so a spec states the refusal it expects in one line. */
import { codeOf } from '../../src/lib/errors';

/** The code of the ContractError `call` throws, `'no error'` when it returns, or what else it threw. */
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

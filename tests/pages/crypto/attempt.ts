/** Calls on the test page as data Playwright can read: a value, or what was thrown with its ContractError code. */
import { ContractError } from '../../../src/lib/errors';

export type Attempt<T> = { ok: true; value: T } | { ok: false; name: string; code?: string; message: string; contractError: boolean };

export async function attempt<T>(operation: () => Promise<T>): Promise<Attempt<T>> {
	try {
		return { ok: true, value: await operation() };
	} catch (error) {
		const failure = error as { name?: string; code?: string; message?: string };
		return {
			ok: false,
			name: failure?.name ?? 'Error',
			code: failure?.code,
			message: failure?.message ?? String(error),
			contractError: error instanceof ContractError
		};
	}
}

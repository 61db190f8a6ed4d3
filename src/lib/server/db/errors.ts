/**
 * Database failures as the inbox's errors: a unique violation becomes `409 ALREADY_EXISTS`; a database
 * that is down, restarting or timing out becomes `503 UNAVAILABLE` (docs/inbox-api.md §1).
 */
import { ContractError } from '../../errors';

/** PostgreSQL's SQLSTATE for a unique violation, raised the same way by pg and PGlite. */
export function isUniqueViolation(error: unknown): boolean {
	return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** Runs `work`; a unique violation in it becomes `409 ALREADY_EXISTS` with `message`. */
export async function uniquely<T>(message: string, work: () => Promise<T>): Promise<T> {
	try {
		return await work();
	} catch (error) {
		if (isUniqueViolation(error)) throw new ContractError('ALREADY_EXISTS', message);
		throw error;
	}
}

/** A failure of the database rather than of the request: connection, shutdown, time-out, a closed PGlite. */
export function isDatabaseUnavailable(error: unknown): boolean {
	if (typeof error !== 'object' || error === null) return false;
	const { code, message } = error as { code?: unknown; message?: unknown };
	if (typeof code === 'string' && (/^(08|57P|53)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)))
		return true;
	return typeof message === 'string' && /connect|terminat|timeout|closed|shutting down/i.test(message);
}

/** The response-worthy form of a thrown value, or undefined for a bug (a 500 that reveals nothing). */
export function asContractError(error: unknown): ContractError | undefined {
	if (error instanceof ContractError) return error;
	if (isDatabaseUnavailable(error)) return new ContractError('UNAVAILABLE', 'the inbox database is not available; try again shortly');
	return undefined;
}

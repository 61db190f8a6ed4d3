/**
 * Per-item results of batch calls: one item's `ContractError` becomes its outcome with
 * the contract's code, so it never hides the other items; any other error is a fault and propagates.
 */
import { ContractError } from '../errors';
import type { Outcome } from './types';

export function failureOutcome(error: unknown): Outcome<never> {
	if (error instanceof ContractError) return { ok: false, code: error.code, message: error.message };
	throw error;
}

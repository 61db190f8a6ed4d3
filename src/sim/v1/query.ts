/**
 * Strict query strings of `/v1` (docs/contract-gaps.md §4, §5, §9): only the listed parameters,
 * each at most once, `limit` 1 … 200 (default 50), opaque cursors; anything else is
 * `400 INVALID_REQUEST`.
 */
import { ContractError, b64uDecode, b64uEncode, utf8Decode, utf8Encode } from '../../lib/crypto/index';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** The parameters of `query`, refusing unknown and repeated ones. */
export function parseQuery(query: URLSearchParams, allowed: readonly string[]): Map<string, string> {
	const values = new Map<string, string>();
	for (const [name, value] of query) {
		if (!allowed.includes(name)) {
			throw new ContractError('INVALID_REQUEST', `unknown query parameter ${name}; allowed: ${allowed.join(', ') || 'none'}`);
		}
		if (values.has(name)) throw new ContractError('INVALID_REQUEST', `query parameter ${name} is repeated`);
		values.set(name, value);
	}
	return values;
}

export function parseLimit(value: string | undefined): number {
	if (value === undefined) return DEFAULT_LIMIT;
	const limit = /^[0-9]{1,3}$/.test(value) ? Number(value) : NaN;
	if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new ContractError('INVALID_REQUEST', `limit must be an integer from 1 to ${MAX_LIMIT}`);
	return limit;
}

/** An opaque cursor: base64url of the JSON position of the last item of a page. */
export function encodeCursor(position: unknown[]): string {
	return b64uEncode(utf8Encode(JSON.stringify(position)));
}

export function decodeCursor(value: string, isValid: (position: unknown[]) => boolean): unknown[] {
	try {
		const position = JSON.parse(utf8Decode(b64uDecode(value, 'cursor')));
		if (Array.isArray(position) && isValid(position)) return position;
	} catch {
		// reported below
	}
	throw new ContractError('INVALID_REQUEST', 'cursor is not a cursor this service returned');
}

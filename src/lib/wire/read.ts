/**
 * Strict readers for JSON that crossed the wire (`/v1` responses and webhook bodies, contract 4 and 6,
 * docs/contract-gaps.md): each names the field that failed and throws a ContractError with the code and
 * status the caller chose, so a response and a webhook can fail differently.
 */
import { ContractError, type ContractCode } from '../errors';
import { b64uDecode } from '../crypto/encoding';
import { ID_RULE, isId, isIntegerIn, MAX_KEY_VERSION } from '../crypto/rules';

export type JsonObject = Record<string, unknown>;

/** Where a reading failure goes: `INVALID_RESPONSE` (502) for the service's answers, `INVALID_INPUT` for events. */
export interface ReadFailure {
	code: ContractCode;
	status?: number;
}

export class Reader {
	constructor(
		private readonly failure: ReadFailure,
		private readonly where: string
	) {}

	fail(message: string): never {
		throw new ContractError(this.failure.code, `${this.where}: ${message}`, this.failure.status);
	}

	/** A reader for a nested place, e.g. `conversation.wrapForCompany`. */
	at(where: string): Reader {
		return new Reader(this.failure, `${this.where}.${where}`);
	}

	object(value: unknown, what: string): JsonObject {
		if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(`${what} must be an object`);
		return value as JsonObject;
	}

	array(value: unknown, what: string): unknown[] {
		if (!Array.isArray(value)) this.fail(`${what} must be a list`);
		return value;
	}

	string(value: unknown, what: string): string {
		if (typeof value !== 'string') this.fail(`${what} must be a string`);
		return value;
	}

	optionalString(value: unknown, what: string): string | null {
		return value === undefined || value === null ? null : this.string(value, what);
	}

	boolean(value: unknown, what: string): boolean {
		if (typeof value !== 'boolean') this.fail(`${what} must be true or false`);
		return value;
	}

	integer(value: unknown, what: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
		if (!isIntegerIn(value, min, max)) this.fail(`${what} must be an integer from ${min} to ${max}`);
		return value;
	}

	id(value: unknown, what: string): string {
		if (!isId(value)) this.fail(`${what} must match ${ID_RULE.source}`);
		return value;
	}

	oneOf<T extends string>(value: unknown, allowed: readonly T[], what: string): T {
		if (typeof value !== 'string' || !allowed.includes(value as T)) this.fail(`${what} must be one of ${allowed.join(', ')}`);
		return value as T;
	}

	/** Strict unpadded base64url, optionally of an exact byte length; returned as the text received. */
	b64u(value: unknown, what: string, length?: number): string {
		let bytes: Uint8Array;
		try {
			bytes = b64uDecode(value, what);
		} catch {
			return this.fail(`${what} must be unpadded base64url`);
		}
		if (length !== undefined && bytes.length !== length) this.fail(`${what} must be ${length} bytes, got ${bytes.length}`);
		return value as string;
	}

	/** A conversation key wrap (contract 2.4): `keyVersion` 1 … 2^31−1 and `sealed` base64url. */
	wrap(value: unknown, what: string): { keyVersion: number; sealed: string } {
		const wrap = this.object(value, what);
		return {
			keyVersion: this.integer(wrap.keyVersion, `${what}.keyVersion`, 1, MAX_KEY_VERSION),
			sealed: this.b64u(wrap.sealed, `${what}.sealed`)
		};
	}
}

/** Parses JSON text into a value, or fails through `reader`. */
export function parseJson(text: string, reader: Reader): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return reader.fail('the body is not JSON');
	}
}

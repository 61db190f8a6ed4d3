/**
 * JSON bodies of `/v1` requests (contract 1.1, "Integers in JSON": `v`, `keyVersion`, `size` … are
 * never emitted as `1.0`). `JSON.parse` reads `1.0` and `1e0` as the integer 1, so a number written
 * with a fraction or an exponent reaches the endpoint as its literal text, a string: each endpoint's
 * own integer check then refuses it with its own code (`INVALID_ENVELOPE`, `INVALID_WRAP`, …).
 * Every number a `/v1` request carries is an integer, so nothing valid is lost.
 */
import { parseJsonObject } from '../http/io';

// A whole JSON string (so digits inside strings are skipped), or a number of the JSON grammar.
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

/** The JSON object of a `/v1` body, numbers not written as integers turned into their literal text. */
export function parseV1JsonObject(raw: Buffer): Record<string, unknown> {
	// Refuses (400 INVALID_REQUEST) anything but a JSON object in strict UTF-8, before the text is scanned.
	const parsed = parseJsonObject(raw);
	let rewritten = false;
	const text = new TextDecoder('utf-8', { fatal: true }).decode(raw).replace(STRING_OR_NUMBER, (token) => {
		if (token.startsWith('"') || !/[.eE]/.test(token)) return token;
		rewritten = true;
		return `"${token}"`;
	});
	return rewritten ? parseJsonObject(text) : parsed;
}

/**
 * HTTP plumbing of the simulator: bounded body reading, JSON responses, and the one mapping from a
 * thrown `ContractError` to the error body `{ "error": { "code", "message" } }` of
 * docs/contract-gaps.md §2 (contract 7.3 leaves the shape open).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ContractError } from '../../lib/crypto/index';

/** Request bodies of `/v1` and the control API: at most 1 MiB (docs/contract-gaps.md §2). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** Reads the whole body, refusing more than `limit` bytes with `413 PAYLOAD_TOO_LARGE`. */
export async function readBody(request: IncomingMessage, limit = MAX_JSON_BODY_BYTES): Promise<Buffer> {
	const declared = Number(request.headers['content-length']);
	if (Number.isFinite(declared) && declared > limit) {
		throw new ContractError('PAYLOAD_TOO_LARGE', `the request body must be at most ${limit} bytes`);
	}
	const chunks: Buffer[] = [];
	let length = 0;
	for await (const chunk of request as AsyncIterable<Buffer>) {
		length += chunk.length;
		if (length > limit) throw new ContractError('PAYLOAD_TOO_LARGE', `the request body must be at most ${limit} bytes`);
		chunks.push(chunk);
	}
	return Buffer.concat(chunks);
}

/** A JSON object body; anything else is `400 INVALID_REQUEST`. */
export function parseJsonObject(raw: Buffer | string): Record<string, unknown> {
	let parsed: unknown;
	try {
		parsed = JSON.parse(typeof raw === 'string' ? raw : new TextDecoder('utf-8', { fatal: true }).decode(raw));
	} catch {
		throw new ContractError('INVALID_REQUEST', 'the body is not JSON (POSTs without data carry {})');
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw new ContractError('INVALID_REQUEST', 'the body must be a JSON object');
	}
	return parsed as Record<string, unknown>;
}

export interface JsonResponse {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
	return { error: { code, message } };
}

/** The response for anything thrown while handling a request. */
export function errorResponse(error: unknown): JsonResponse {
	if (error instanceof ContractError) {
		// Crypto codes raised while checking client input carry no status: they are the client's fault.
		return { status: error.status ?? 400, body: errorBody(error.code, error.message) };
	}
	console.error('[sim] internal error:', error);
	return { status: 500, body: errorBody('INTERNAL', 'the simulator failed to handle the request') };
}

export function sendJson(response: ServerResponse, result: JsonResponse): void {
	const text = JSON.stringify(result.body);
	response.writeHead(result.status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
		'cache-control': 'no-store',
		...result.headers
	});
	response.end(text);
}

export function sendError(response: ServerResponse, error: unknown): void {
	const result = errorResponse(error);
	if (error instanceof ContractError && error.code === 'PAYLOAD_TOO_LARGE') {
		// The rest of an oversized body is not read: close the connection after answering.
		result.headers = { ...result.headers, connection: 'close' };
	}
	if (!response.headersSent) sendJson(response, result);
	else response.destroy();
}

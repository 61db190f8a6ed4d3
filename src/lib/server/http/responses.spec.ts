import { describe, expect, it } from 'vitest';
import { ContractError } from '../../errors';
import { decodeUtf8, errorResponse, json, parseJsonObject, readBodyBytes, readJsonObject, requireJsonContentType } from './responses';

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
	new Request('http://inbox.test/api/x', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

/** A body streamed in `chunks`, counting how many the reader pulled. */
function streamed(chunks: Uint8Array[], failAfter?: number) {
	let pulled = 0;
	const stream = new ReadableStream<Uint8Array>({
		pull(controller) {
			if (failAfter !== undefined && pulled === failAfter) return controller.error(new Error('cut by the adapter'));
			if (pulled === chunks.length) return controller.close();
			controller.enqueue(chunks[pulled++]);
		}
	});
	return { stream, pulled: () => pulled };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status?: number; message: string }> {
	const error = await promise.then(
		() => undefined,
		(caught: unknown) => caught
	);
	if (!(error instanceof ContractError)) throw new Error(`expected a ContractError, got ${String(error)}`);
	return { code: error.code, status: error.status, message: error.message };
}

describe('JSON answers (docs/inbox-api.md §1)', () => {
	it('are JSON, never cached, with the given status and extra headers', async () => {
		const response = json({ a: 1 }, 201, { 'retry-after': '3' });
		expect(response.status).toBe(201);
		expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(response.headers.get('cache-control')).toBe('no-store');
		expect(response.headers.get('retry-after')).toBe('3');
		expect(await response.json()).toEqual({ a: 1 });
		expect(json(null).status).toBe(200);
	});

	it('turn a ContractError into its code, message and status, and anything else into a 500 that reveals nothing', async () => {
		const contract = errorResponse(new ContractError('NOT_FOUND', 'no such conversation'), { 'x-a': 'b' });
		expect([contract.status, contract.headers.get('x-a'), await contract.json()]).toEqual([
			404,
			'b',
			{ error: { code: 'NOT_FOUND', message: 'no such conversation' } }
		]);
		expect(errorResponse(new ContractError('INVALID_REQUEST', 'bad')).status).toBe(400);
		const internal = errorResponse(new Error('password=hunter2 at db.ts:12'), { 'x-a': 'b' });
		expect([internal.status, internal.headers.get('x-a')]).toEqual([500, 'b']);
		expect(await internal.json()).toEqual({ error: { code: 'INTERNAL', message: 'the inbox failed to handle this request' } });
	});
});

describe('request bodies', () => {
	it('read up to the limit exactly, in any number of chunks', async () => {
		expect(await readBodyBytes(post(null), 10)).toEqual(new Uint8Array(0));
		expect(await readBodyBytes(post(new Uint8Array([1, 2, 3])), 3)).toEqual(new Uint8Array([1, 2, 3]));
		expect(await readBodyBytes(post(new Uint8Array([1, 2, 3]), { 'content-length': '3' }), 3)).toEqual(new Uint8Array([1, 2, 3]));
		const { stream } = streamed([new Uint8Array([1, 2]), new Uint8Array([3]), new Uint8Array([4, 5])]);
		expect(await readBodyBytes(post(stream), 5)).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
	});

	it('over the limit, by the declared length or as read, are 413 PAYLOAD_TOO_LARGE, and the rest is drained', async () => {
		const tooLarge = { code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'the body must be at most 4 bytes' };
		expect(await refusal(readBodyBytes(post(new Uint8Array(5)), 4))).toEqual(tooLarge);
		const declared = streamed([new Uint8Array(2), new Uint8Array(2)]);
		expect(await refusal(readBodyBytes(post(declared.stream, { 'content-length': '5' }), 4))).toEqual(tooLarge);
		expect(declared.pulled()).toBe(2);
		const undeclared = streamed([new Uint8Array(3), new Uint8Array(3), new Uint8Array(3)]);
		expect(await refusal(readBodyBytes(post(undeclared.stream), 4))).toEqual(tooLarge);
		expect(undeclared.pulled()).toBe(3);
	});

	it('stop draining after 8 MiB, and a body the adapter cuts is 413 too', async () => {
		const mebibyte = new Uint8Array(1024 * 1024);
		const endless = streamed(Array.from({ length: 20 }, () => mebibyte));
		await refusal(readBodyBytes(post(endless.stream), 10));
		expect(endless.pulled()).toBe(9);
		const cut = streamed([new Uint8Array(2), new Uint8Array(2)], 1);
		expect(await refusal(readBodyBytes(post(cut.stream), 100))).toEqual({
			code: 'PAYLOAD_TOO_LARGE',
			status: 413,
			message: 'the body is larger than the server accepts'
		});
		const cutWhileDraining = streamed([new Uint8Array(20), new Uint8Array(2)], 1);
		expect((await refusal(readBodyBytes(post(cutWhileDraining.stream), 10))).message).toBe('the body must be at most 10 bytes');
	});

	it('must be declared as JSON, parameters and case aside', () => {
		for (const type of ['application/json', 'application/json; charset=utf-8', ' Application/JSON ;x=1']) {
			expect(() => requireJsonContentType(post('{}', { 'content-type': type })), type).not.toThrow();
		}
		for (const type of [undefined, 'text/plain', 'application/jsonx', 'application/x-www-form-urlencoded']) {
			const headers: Record<string, string> = type ? { 'content-type': type } : {};
			expect(() => requireJsonContentType(new Request('http://inbox.test/', { headers })), String(type)).toThrow(
				expect.objectContaining({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, message: 'send the body as Content-Type: application/json' })
			);
		}
	});

	it('must be one JSON object of UTF-8; an empty body is an empty object', async () => {
		expect(parseJsonObject('  ')).toEqual({});
		expect(parseJsonObject('{"a":[1]}')).toEqual({ a: [1] });
		for (const [text, message] of [
			['{"a":', 'the body is not valid JSON'],
			['[]', 'the body must be a JSON object'],
			['null', 'the body must be a JSON object'],
			['"text"', 'the body must be a JSON object'],
			['1', 'the body must be a JSON object']
		]) {
			expect(() => parseJsonObject(text), text).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', status: 400, message }));
		}
		expect(decodeUtf8(new Uint8Array([0xc3, 0xa9]))).toBe('é');
		expect(() => decodeUtf8(new Uint8Array([0xc3]))).toThrow(
			expect.objectContaining({ code: 'INVALID_REQUEST', status: 400, message: 'the body is not UTF-8' })
		);

		expect(await readJsonObject(post(null))).toEqual({});
		expect(await readJsonObject(post('{"b":2}', { 'content-type': 'application/json' }))).toEqual({ b: 2 });
		expect((await refusal(readJsonObject(post('{"b":2}', { 'content-type': 'text/plain' })))).code).toBe('UNSUPPORTED_MEDIA_TYPE');
		expect((await refusal(readJsonObject(post('x'.repeat(64 * 1024 + 1), { 'content-type': 'application/json' })))).code).toBe(
			'PAYLOAD_TOO_LARGE'
		);
		expect(await readJsonObject(post(`{"c":"${'x'.repeat(64 * 1024 - 8)}"}`, { 'content-type': 'application/json' }))).toHaveProperty('c');
	});
});

/**
 * The simulated object storage behind presigned URLs (contract 2.7, 2.8, 4 and 7.3's `403`): a PUT
 * must carry exactly the returned headers and exactly `size` bytes, with no `Authorization` and no
 * `X-Service-Signature` (contract 4: no HMAC signature); a GET
 * returns the ciphertext. Any deviation, an expired or altered URL, or a second upload is `403`.
 * An `x-amz-*` header that was not returned is a deviation (it would change what is stored, as an
 * ACL or metadata); other headers are not, since browsers and proxies add their own.
 * CORS lets a browser PUT and GET directly.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context';
import type { Attachment } from './state';
import { errorBody, readBody, sendJson } from './http/io';
import { presignedUrlIsValid, storeObject, UPLOAD_HEADERS, type StorageOperation } from './service/attachments';

const CORS_HEADERS = {
	'access-control-allow-origin': '*',
	'access-control-expose-headers': 'etag, content-length'
};

function forbidden(response: ServerResponse, message: string, closeConnection = false): void {
	sendJson(response, {
		status: 403,
		body: errorBody('FORBIDDEN', message),
		headers: { ...CORS_HEADERS, ...(closeConnection ? { connection: 'close' } : {}) }
	});
}

function preflight(response: ServerResponse): void {
	response.writeHead(204, {
		...CORS_HEADERS,
		'access-control-allow-methods': 'PUT, GET',
		'access-control-allow-headers': Object.keys(UPLOAD_HEADERS).join(', '),
		'access-control-max-age': '600'
	});
	response.end();
}

/** Why a request cannot use a presigned URL, before its body is read; null when it may. */
function requestProblem(
	ctx: SimContext,
	request: IncomingMessage,
	operation: StorageOperation,
	attachmentId: string,
	url: URL
): string | null {
	const expectedMethod = operation === 'upload' ? 'PUT' : 'GET';
	if (request.method !== expectedMethod) return `this URL is presigned for ${expectedMethod}`;
	if (!presignedUrlIsValid(ctx, operation, attachmentId, url.searchParams)) return 'the presigned URL is expired or was altered';
	if (request.headers.authorization !== undefined) return 'a presigned request carries no Authorization header';
	if (request.headers['x-service-signature'] !== undefined) return 'a presigned request carries no X-Service-Signature header';
	const returned: readonly string[] = operation === 'upload' ? Object.keys(UPLOAD_HEADERS) : [];
	const extra = Object.keys(request.headers).find((name) => name.startsWith('x-amz-') && !returned.includes(name));
	if (extra !== undefined) return `a presigned request carries only the storage headers it was given, not ${extra}`;
	const attachment = ctx.store.attachments.get(attachmentId);
	if (!attachment) return 'no such object';
	if (operation === 'object') return ctx.store.objects.has(attachmentId) ? null : 'the object has not been uploaded';
	for (const [name, value] of Object.entries(UPLOAD_HEADERS)) {
		if (request.headers[name] !== value) return `the upload must carry the header ${name}: ${value} exactly`;
	}
	if (attachment.uploadedAtMs !== null) return 'the object was already uploaded';
	const declared = request.headers['content-length'];
	if (declared !== undefined && declared !== String(attachment.size)) {
		return `the body must be exactly ${attachment.size} bytes, Content-Length says ${declared}`;
	}
	return null;
}

/** Handles `/_storage/upload/{id}` and `/_storage/object/{id}`; returns false for other paths. */
export async function handleStorage(ctx: SimContext, request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
	const match = /^\/_storage\/(upload|object)\/([^/]+)$/.exec(url.pathname);
	if (!match) return false;
	if (request.method === 'OPTIONS') {
		preflight(response);
		return true;
	}
	const operation = match[1] as StorageOperation;
	const attachmentId = match[2];
	const problem = requestProblem(ctx, request, operation, attachmentId, url);
	if (problem !== null) {
		// The body of a refused request is not read: the connection closes after the answer.
		forbidden(response, problem, true);
		return true;
	}
	if (operation === 'object') {
		const bytes = ctx.store.objects.get(attachmentId) as Uint8Array;
		response.writeHead(200, {
			...CORS_HEADERS,
			'content-type': 'application/octet-stream',
			'content-length': bytes.length,
			'cache-control': 'private, no-store'
		});
		response.end(bytes);
		return true;
	}
	const attachment = ctx.store.attachments.get(attachmentId) as Attachment;
	let body: Buffer;
	try {
		body = await readBody(request, attachment.size);
	} catch {
		forbidden(response, `the body must be exactly ${attachment.size} bytes`, true);
		return true;
	}
	if (body.length !== attachment.size) forbidden(response, `the body must be exactly ${attachment.size} bytes, got ${body.length}`);
	else if (attachment.uploadedAtMs !== null) forbidden(response, 'the object was already uploaded');
	else {
		storeObject(ctx, attachment, new Uint8Array(body));
		response.writeHead(200, { ...CORS_HEADERS, etag: `"${attachment.attachmentId}"`, 'content-length': 0 });
		response.end();
	}
	return true;
}

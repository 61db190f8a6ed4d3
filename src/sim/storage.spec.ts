import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { expectError, startConversation, useSimulator } from './testing/fixture';

const env = useSimulator();

interface Upload {
	attachmentId: string;
	uploadUrl: string;
	method: string;
	headers: Record<string, string>;
	expiresIn: number;
}

async function newUpload(size: number): Promise<{ upload: Upload; conversationId: string }> {
	const conversation = await startConversation(env.simulator, env.client, env.company);
	const created = await env.client.post(`/v1/conversations/${conversation.conversationId}/attachments`, { size });
	expect(created.status).toBe(201);
	return { upload: created.body, conversationId: conversation.conversationId };
}

/** A PUT through node:http, sending the body in pieces with chunked encoding (no Content-Length). */
function chunkedPut(url: string, headers: Record<string, string>, pieces: Uint8Array[]): Promise<number> {
	return new Promise((resolve, reject) => {
		const outgoing = httpRequest(url, { method: 'PUT', headers: { ...headers, 'transfer-encoding': 'chunked' } }, (response) => {
			response.resume();
			resolve(response.statusCode ?? 0);
		});
		outgoing.on('error', (error) =>
			(error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE'
				? undefined
				: reject(error)
		);
		for (const piece of pieces) outgoing.write(piece);
		outgoing.end();
	});
}

const put = (upload: Upload, body: Uint8Array, headers: Record<string, string> = upload.headers, url = upload.uploadUrl) =>
	fetch(url, { method: 'PUT', headers, body: body as Uint8Array<ArrayBuffer> });

describe('creating an upload (contract 2.7, 4.3)', () => {
	it('answers 201 with the upload record: PUT, the two headers, 300 s', async () => {
		const { upload } = await newUpload(1000);
		expect(upload).toEqual({
			attachmentId: expect.stringMatching(/^att_[A-Za-z0-9_-]{8,64}$/),
			uploadUrl: expect.stringMatching(
				new RegExp(`^${env.simulator.url}/_storage/upload/${upload.attachmentId}\\?expires=\\d+&sig=[A-Za-z0-9_-]+$`)
			),
			method: 'PUT',
			headers: { 'content-type': 'application/octet-stream', 'x-amz-tagging': 'state=pending' },
			expiresIn: 300
		});
	});

	it('takes a ciphertext size of 16 … 26,220,800 bytes', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const path = `/v1/conversations/${conversation.conversationId}/attachments`;
		expect((await env.client.post(path, { size: 16 })).status).toBe(201);
		expect((await env.client.post(path, { size: 26_220_800 })).status).toBe(201);
		for (const size of [15, 26_220_801, 16.5, '16', null]) expectError(await env.client.post(path, { size }), 400, 'INVALID_REQUEST');
		expectError(await env.client.post(path, {}), 400, 'INVALID_REQUEST');
	});

	it('answers 404 for an unknown conversation, 409 CONVERSATION_PENDING and 410 USER_DELETED', async () => {
		expectError(await env.client.post('/v1/conversations/conv_unknown/attachments', { size: 16 }), 404, 'NOT_FOUND');
		const pending = await env.client.post('/v1/invites', {});
		expectError(
			await env.client.post(`/v1/conversations/${pending.body.conversationId}/attachments`, { size: 16 }),
			409,
			'CONVERSATION_PENDING'
		);
		const deleted = await startConversation(env.simulator, env.client, env.company);
		await env.simulator.control('POST', `/_sim/customers/${deleted.customerId}/delete`, {});
		expectError(await env.client.post(`/v1/conversations/${deleted.conversationId}/attachments`, { size: 16 }), 410, 'USER_DELETED');
	});
});

describe('the presigned PUT (contract 4, 7.3: any deviation is 403)', () => {
	it('refuses a missing header, a changed content type, a wrong length, an altered URL, an Authorization header and an HMAC signature, then accepts the exact request once', async () => {
		const { upload } = await newUpload(64);
		const bytes = new Uint8Array(64).fill(3);
		const { 'x-amz-tagging': _tagging, ...withoutTagging } = upload.headers;
		const { 'content-type': _type, ...withoutType } = upload.headers;
		const refusals: [string, Promise<Response | number>][] = [
			['missing tagging header', put(upload, bytes, withoutTagging)],
			['missing content type', put(upload, bytes, withoutType)],
			['changed content type', put(upload, bytes, { ...upload.headers, 'content-type': 'application/json' })],
			[
				'content type with a parameter',
				put(upload, bytes, { ...upload.headers, 'content-type': 'application/octet-stream; charset=binary' })
			],
			['other tagging', put(upload, bytes, { ...upload.headers, 'x-amz-tagging': 'state=done' })],
			['one byte short', put(upload, bytes.subarray(1))],
			['one byte long', put(upload, new Uint8Array(65))],
			['empty', put(upload, new Uint8Array(0))],
			['chunked, short', chunkedPut(upload.uploadUrl, upload.headers, [bytes.subarray(0, 30), bytes.subarray(30, 63)])],
			['chunked, long', chunkedPut(upload.uploadUrl, upload.headers, [bytes, new Uint8Array(1)])],
			[
				'altered signature',
				put(
					upload,
					bytes,
					upload.headers,
					upload.uploadUrl.replace(/sig=./, (match) => (match.endsWith('A') ? 'sig=B' : 'sig=A'))
				)
			],
			[
				'extended expiry',
				put(
					upload,
					bytes,
					upload.headers,
					upload.uploadUrl.replace(/expires=(\d+)/, (_, value) => `expires=${Number(value) + 3600}`)
				)
			],
			['extra parameter', put(upload, bytes, upload.headers, `${upload.uploadUrl}&x=1`)],
			['Authorization', put(upload, bytes, { ...upload.headers, authorization: `Bearer ${env.company.apiKey}` })],
			['HMAC signature', put(upload, bytes, { ...upload.headers, 'x-service-signature': `t=1700000000,v1=${'0'.repeat(64)}` })]
		];
		for (const [name, pending] of refusals) {
			const result = await pending;
			const status = typeof result === 'number' ? result : result.status;
			expect(status, name).toBe(403);
			if (typeof result !== 'number') expect((await result.json()).error.code, name).toBe('FORBIDDEN');
		}
		const post = await fetch(upload.uploadUrl, { method: 'POST', headers: upload.headers, body: bytes });
		expect(post.status).toBe(403);

		expect((await put(upload, bytes)).status).toBe(200);
		expect((await put(upload, bytes)).status).toBe(403);
	});

	it('ignores headers outside the storage’s own, but refuses an x-amz- header it did not return', async () => {
		const { upload } = await newUpload(16);
		const bytes = new Uint8Array(16).fill(7);
		for (const [name, value] of [
			['x-amz-acl', 'public-read'],
			['x-amz-meta-name', 'secret.pdf'],
			['x-amz-storage-class', 'GLACIER']
		]) {
			const refused = await put(upload, bytes, { ...upload.headers, [name]: value });
			expect([refused.status, (await refused.json()).error.code], name).toEqual([403, 'FORBIDDEN']);
		}
		const accepted = await put(upload, bytes, { ...upload.headers, 'x-request-id': 'abc', 'accept-language': 'fr' });
		expect(accepted.status).toBe(200);
	});

	it('accepts a chunked upload (no Content-Length) of exactly size bytes', async () => {
		const { upload, conversationId } = await newUpload(100);
		const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
		expect(await chunkedPut(upload.uploadUrl, upload.headers, [bytes.subarray(0, 10), bytes.subarray(10)])).toBe(200);
		const record = await env.client.get(`/v1/conversations/${conversationId}/attachments/${upload.attachmentId}`);
		expect(new Uint8Array(await (await fetch(record.body.downloadUrl)).arrayBuffer())).toEqual(bytes);
	});

	it('refuses an upload URL after its 300 s', async () => {
		const { upload } = await newUpload(16);
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 301 });
		try {
			expect((await put(upload, new Uint8Array(16))).status).toBe(403);
		} finally {
			await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0 });
		}
		expect((await put(upload, new Uint8Array(16))).status).toBe(200);
	});

	it('answers CORS so a browser can PUT and GET directly', async () => {
		const { upload } = await newUpload(16);
		const preflight = await fetch(upload.uploadUrl, {
			method: 'OPTIONS',
			headers: {
				origin: 'http://inbox.example',
				'access-control-request-method': 'PUT',
				'access-control-request-headers': 'content-type,x-amz-tagging'
			}
		});
		expect(preflight.status).toBe(204);
		expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
		expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
		expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type, x-amz-tagging');
		const uploaded = await fetch(upload.uploadUrl, {
			method: 'PUT',
			headers: { ...upload.headers, origin: 'http://inbox.example' },
			body: new Uint8Array(16)
		});
		expect(uploaded.headers.get('access-control-allow-origin')).toBe('*');
	});
});

describe('the download record and presigned GET (contract 2.8)', () => {
	it('answers 409 ATTACHMENT_NOT_UPLOADED before the bytes, then a URL valid 300 s', async () => {
		const { upload, conversationId } = await newUpload(32);
		const path = `/v1/conversations/${conversationId}/attachments/${upload.attachmentId}`;
		expectError(await env.client.get(path), 409, 'ATTACHMENT_NOT_UPLOADED');
		await put(upload, new Uint8Array(32).fill(5));
		const record = await env.client.get(path);
		expect(record.body).toEqual({ downloadUrl: expect.stringContaining('/_storage/object/'), size: 32, expiresIn: 300 });
		const download = await fetch(record.body.downloadUrl, { headers: { origin: 'http://inbox.example' } });
		expect(download.headers.get('access-control-allow-origin')).toBe('*');
		expect(new Uint8Array(await download.arrayBuffer())).toEqual(new Uint8Array(32).fill(5));
		expect((await fetch(record.body.downloadUrl, { headers: { authorization: 'Bearer x' } })).status).toBe(403);
		expect((await fetch(record.body.downloadUrl.replace('/object/', '/upload/'))).status).toBe(403);
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 301 });
		try {
			expect((await fetch(record.body.downloadUrl)).status).toBe(403);
		} finally {
			await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0 });
		}
	});

	it('refuses a download GET with Authorization or an x-amz- header, and still serves the plain GET after it', async () => {
		const { upload, conversationId } = await newUpload(16);
		await put(upload, new Uint8Array(16).fill(1));
		const record = await env.client.get(`/v1/conversations/${conversationId}/attachments/${upload.attachmentId}`);
		const refusedHeaders: Record<string, string>[] = [
			{ authorization: `Bearer ${env.company.apiKey}` },
			{ 'x-amz-server-side-encryption': 'AES256' }
		];
		for (const headers of refusedHeaders) {
			const refused = await fetch(record.body.downloadUrl, { headers });
			expect([refused.status, (await refused.json()).error.code]).toEqual([403, 'FORBIDDEN']);
		}
		const plain = await fetch(record.body.downloadUrl, { headers: { 'x-request-id': 'abc' } });
		expect(new Uint8Array(await plain.arrayBuffer())).toEqual(new Uint8Array(16).fill(1));
	});

	it('answers 404 ATTACHMENT_NOT_FOUND for an attachment of another conversation', async () => {
		const { upload } = await newUpload(16);
		const other = await startConversation(env.simulator, env.client, env.company);
		expectError(
			await env.client.get(`/v1/conversations/${other.conversationId}/attachments/${upload.attachmentId}`),
			404,
			'ATTACHMENT_NOT_FOUND'
		);
	});
});

describe('1,000 uploads per company per hour (contract 8)', () => {
	it('answers 429 RATE_LIMITED with Retry-After past the limit, does not store it for idempotency, and allows again an hour later', async () => {
		const { company: limitedCompany, client: limited } = await env.isolatedCompany();
		const conversation = await startConversation(env.simulator, limited, limitedCompany);
		const path = `/v1/conversations/${conversation.conversationId}/attachments`;
		for (let batch = 0; batch < 20; batch++) {
			const results = await Promise.all(Array.from({ length: 50 }, () => limited.post(path, { size: 16 })));
			expect(results.every((result) => result.status === 201)).toBe(true);
		}
		const refused = await limited.post(path, { size: 16 }, { idempotencyKey: 'over-the-limit' });
		expectError(refused, 429, 'RATE_LIMITED');
		expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
		const otherCompany = await startConversation(env.simulator, env.client, env.company);
		expect((await env.client.post(`/v1/conversations/${otherCompany.conversationId}/attachments`, { size: 16 })).status).toBe(201);
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 3601 });
		try {
			const later = await limited.post(path, { size: 16 }, { idempotencyKey: 'over-the-limit' });
			expect(later.status).toBe(201);
			expect(later.headers.get('idempotent-replayed')).toBeNull();
		} finally {
			await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0 });
		}
	});
});

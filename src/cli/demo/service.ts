/**
 * A signed `/v1` call from Node (contract 5.1) for the demo launcher and the tests' tooling: the
 * request built by src/lib/wire/v1.ts, signed with the company's webhook secret by the crypto core.
 * Dev tooling only; the inbox server has its own upstream client.
 */
import { randomBytes } from 'node:crypto';
import { signRequest } from '../../lib/crypto/index';
import { nodeHmacSha256 } from '../../lib/server/hmac';
import { v1ErrorFromResponse, type V1Request } from '../../lib/wire/v1';

export interface ServiceCredentials {
	companyId: string;
	apiKey: string;
	webhookSecret: string;
	serviceBaseUrl: string;
}

export async function callService<T>(company: ServiceCredentials, request: V1Request<T>): Promise<T> {
	const body = request.body ?? '';
	const signed = signRequest(
		{ secret: company.webhookSecret, t: Math.floor(Date.now() / 1000), method: request.method, pathAndQuery: request.pathAndQuery, body },
		nodeHmacSha256
	);
	const headers: Record<string, string> = { authorization: `Bearer ${company.apiKey}`, 'x-service-signature': signed.header };
	if (request.body !== undefined) headers['content-type'] = 'application/json';
	if (request.method !== 'GET') headers['idempotency-key'] = `demo_${randomBytes(16).toString('base64url')}`;
	const response = await fetch(`${company.serviceBaseUrl}${request.pathAndQuery}`, { method: request.method, headers, body: request.body });
	const text = await response.text();
	if (!response.ok) throw v1ErrorFromResponse(response.status, text);
	return request.parse(JSON.parse(text));
}

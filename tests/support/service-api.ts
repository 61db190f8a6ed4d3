/**
 * The service's `/v1` as the company itself calls it, signed with its API key and webhook secret
 * (contract 5.1), for specs that look at the service's side of something the inbox did — the inbox's
 * signing proxy forwards only an agent's conversation work (docs/inbox-api.md §6).
 */
import { randomUUID } from 'node:crypto';
import type { Stack } from '../../src/cli/stack/stack';
import { signRequest } from '../../src/lib/crypto/index';

/* eslint-disable @typescript-eslint/no-explicit-any -- the service's JSON answers are read loosely; the specs assert on them */
export async function callService(
	stack: Stack,
	method: 'GET' | 'POST',
	pathAndQuery: string,
	body?: unknown
): Promise<{ status: number; body: any }> {
	const text = body === undefined ? '' : JSON.stringify(body);
	const { header } = signRequest({
		secret: stack.company.webhookSecret,
		t: Math.floor(Date.now() / 1000),
		method,
		pathAndQuery,
		body: text
	});
	const headers: Record<string, string> = { authorization: `Bearer ${stack.company.apiKey}`, 'x-service-signature': header };
	if (body !== undefined) headers['content-type'] = 'application/json';
	if (method === 'POST') headers['idempotency-key'] = `spec-${randomUUID()}`;
	const response = await fetch(stack.simUrl + pathAndQuery, { method, headers, body: body === undefined ? undefined : text });
	const answer = await response.text();
	return { status: response.status, body: answer ? JSON.parse(answer) : null };
}

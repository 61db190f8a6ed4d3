/**
 * Calls to the service through the inbox's signing proxy `/api/v1/...` (docs/inbox-api.md §6). The
 * requests are built by src/lib/wire/v1.ts, the one module that knows `/v1` shapes, and its strict
 * readers check every answer. Non-GET calls carry one `Idempotency-Key` per logical operation. Each
 * call tells the page's connectivity whether the server and the service answered.
 */
import { ContractError } from '../errors';
import { v1ErrorFromResponse, type V1Request } from '../wire/v1';
import { errorFromResponse, fetchInbox } from './http';
import { connectivity, isServiceUnreachable } from './connectivity.svelte';

export interface ProxyResult<T> {
	value: T;
	/** The service answered an earlier identical request again (`Idempotent-Replayed: true`). */
	replayed: boolean;
}

export async function callV1<T>(
	request: V1Request<T>,
	options: { idempotencyKey?: string; signal?: AbortSignal } = {}
): Promise<ProxyResult<T>> {
	const headers: Record<string, string> = { accept: 'application/json' };
	if (request.body !== undefined) headers['content-type'] = 'application/json';
	if (options.idempotencyKey && request.method !== 'GET') headers['idempotency-key'] = options.idempotencyKey;
	const response = await fetchInbox(`/api${request.pathAndQuery}`, {
		method: request.method,
		headers,
		body: request.body,
		signal: options.signal
	});
	if (!response.ok) {
		// the inbox's own refusals (session, role, path) and the service's errors share one body shape
		if (response.status === 401) throw await errorFromResponse(response);
		const error = v1ErrorFromResponse(response.status, await response.text());
		connectivity.serverAnswered(!isServiceUnreachable(error));
		throw error;
	}
	connectivity.serverAnswered(true);
	let json: unknown;
	try {
		json = await response.json();
	} catch {
		throw new ContractError('INVALID_RESPONSE', `${request.method} ${request.pathAndQuery}: the answer is not JSON`);
	}
	return { value: request.parse(json), replayed: response.headers.get('idempotent-replayed') === 'true' };
}

/** Shorthand when the replay flag does not matter. */
export async function v1Call<T>(request: V1Request<T>, options: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<T> {
	return (await callV1(request, options)).value;
}

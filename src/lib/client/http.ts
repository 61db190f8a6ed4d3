/**
 * The browser's HTTP calls to the inbox server (docs/inbox-api.md §1): JSON in and out, the session
 * cookie, and every error turned into a ContractError with the server's code and status. A `401
 * UNAUTHENTICATED` also tells the session, so the page can ask the person to sign in again.
 */
import { codeForStatus, ContractError, isContractCode } from '../errors';
import { b64uEncode } from '../crypto/encoding';
import type { AnswerOf, BodyOf, Endpoint, ParamsOf, QueryOf } from '../inbox-api/endpoints';
import { queryString } from '../query-string';
import { connectivity } from './connectivity.svelte';

type Listener = () => void;
const unauthenticatedListeners = new Set<Listener>();

/** Called whenever the server answers `401 UNAUTHENTICATED` (an ended or expired session). */
export function onUnauthenticated(listener: Listener): () => void {
	unauthenticatedListeners.add(listener);
	return () => unauthenticatedListeners.delete(listener);
}

/** A fresh `Idempotency-Key` (docs/inbox-api.md §6): printable ASCII, far below 128 characters. */
export function newIdempotencyKey(prefix = 'idk'): string {
	return `${prefix}_${b64uEncode(crypto.getRandomValues(new Uint8Array(18)))}`;
}

/** The ContractError of a non-2xx answer: the body's `{ error: { code, message } }`, or one chosen from the status. */
export async function errorFromResponse(response: Response): Promise<ContractError> {
	let code: unknown;
	let message = `the server answered ${response.status}`;
	try {
		const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
		code = body?.error?.code;
		if (typeof body?.error?.message === 'string') message = body.error.message;
	} catch {
		// not JSON: keep the status
	}
	const error = new ContractError(isContractCode(code) ? code : codeForStatus(response.status, 'inbox'), message, response.status);
	if (error.code === 'UNAUTHENTICATED') for (const listener of unauthenticatedListeners) listener();
	return error;
}

export interface RequestOptions {
	body?: unknown;
	idempotencyKey?: string;
	signal?: AbortSignal;
}

/** `fetch` to the inbox server with the session cookie; a failure without an answer tells the page's connectivity. */
export async function fetchInbox(path: string, init: RequestInit): Promise<Response> {
	try {
		return await fetch(path, { ...init, credentials: 'same-origin', cache: 'no-store' });
	} catch (error) {
		if (!init.signal?.aborted) connectivity.serverFailed();
		throw error;
	}
}

/** Sends a request and returns the raw Response when it is 2xx; throws the ContractError otherwise. */
export async function send(method: string, path: string, options: RequestOptions & { rawBody?: string } = {}): Promise<Response> {
	const headers: Record<string, string> = { accept: 'application/json' };
	const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
	if (body !== undefined) headers['content-type'] = 'application/json';
	if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
	const response = await fetchInbox(path, { method, headers, body, signal: options.signal });
	connectivity.serverAnswered();
	if (!response.ok) throw await errorFromResponse(response);
	return response;
}

/** A JSON request to the inbox's own API; `undefined` for `204`. */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
	const response = await send(method, path, options);
	if (response.status === 204) return undefined as T;
	try {
		return (await response.json()) as T;
	} catch {
		throw new ContractError('INVALID_RESPONSE', `${method} ${path}: the answer is not JSON`, response.status);
	}
}

/** What a call of `endpoint` needs: its path parameters, its query, its body (docs/inbox-api.md). */
export type CallInput<E extends Endpoint> = (keyof ParamsOf<E> extends never ? { params?: undefined } : { params: ParamsOf<E> }) &
	(QueryOf<E> extends undefined ? { query?: undefined } : { query?: QueryOf<E> }) &
	(BodyOf<E> extends undefined ? { body?: undefined } : { body: BodyOf<E> }) & { idempotencyKey?: string; signal?: AbortSignal };

/** The path of `route` with its `[name]` parameters filled in, each one encoded. */
export function pathOf(route: string, params: Record<string, string> = {}): string {
	return route.replace(/\[(\w+)\]/g, (_, name: string) => {
		const value = params[name];
		if (value === undefined) throw new ContractError('INVALID_INPUT', `${route} needs the parameter ${name}`);
		return encodeURIComponent(value);
	});
}

/** Calls one endpoint of the inbox's API as it is declared (src/lib/inbox-api/endpoints.ts), with its typed answer. */
export function call<E extends Endpoint>(
	endpoint: E,
	...[input]: keyof CallInput<E> extends never ? [] : [CallInput<E>?]
): Promise<AnswerOf<E>>;
export function call<E extends Endpoint>(endpoint: E, input: Partial<CallInput<E>> = {}): Promise<AnswerOf<E>> {
	const { params, query, body, idempotencyKey, signal } = input as {
		params?: Record<string, string>;
		query?: Record<string, string | number | null | undefined>;
		body?: unknown;
		idempotencyKey?: string;
		signal?: AbortSignal;
	};
	const path = pathOf(endpoint.route, params) + (query ? queryString(query) : '');
	return api<AnswerOf<E>>(endpoint.method, path, { body, idempotencyKey, signal });
}

/**
 * What the log knows of the request being served (docs/operations.md "Logs"; docs/inbox-api.md §1
 * `X-Request-Id`): its id, SvelteKit's route id and the signed-in account, kept in an AsyncLocalStorage so
 * that a line logged deep in a handler carries them without being handed them. The processing of a
 * stored webhook runs under the id of the request that stored it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

export interface RequestContext {
	readonly requestId: string;
	/** SvelteKit's route id (`/api/conversations/[conversationId]`), never the path: a path can carry what a client typed. */
	route?: string | null;
	accountId?: string;
}

/**
 * An incoming `X-Request-Id` is kept when it is 1 to 40 visible ASCII characters: a UUID, a load balancer's
 * or a tracer's id fits; a key does not, as every spelling of one that the secret guard looks for is longer
 * (http/secret-guard.ts), so a header carrying `signing.key` never becomes a log field.
 */
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,40}$/;

/** The incoming id when it is sane, else a new one (`req_` and 16 random base64url characters). */
export function requestIdOf(incoming: string | string[] | undefined | null): string {
	return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : `req_${randomBytes(12).toString('base64url')}`;
}

// One store per process: this module is bundled twice, into SvelteKit's server (the hooks, the handlers)
// and into the server entry (node/entry.ts, which starts each request), and both must share it.
const STORE = Symbol.for('encrypted-web-inbox.request-context');
const shared = globalThis as typeof globalThis & { [STORE]?: AsyncLocalStorage<RequestContext> };
const storage = (shared[STORE] ??= new AsyncLocalStorage<RequestContext>());

/** Runs `work` as part of the request (or the webhook's processing) `context` describes. */
export function inRequest<T>(context: RequestContext, work: () => T): T {
	return storage.run(context, work);
}

/** Runs `work` under the id of the request it continues (the one that stored a webhook), when it has one. */
export function continuingRequest<T>(requestId: string | null, work: () => T): T {
	return requestId === null ? work() : storage.run({ requestId }, work);
}

/** The request being served, if any: its fields can still be filled in (the route, then the account). */
export function currentRequest(): RequestContext | undefined {
	return storage.getStore();
}

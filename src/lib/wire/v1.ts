/**
 * The one module of the inbox that knows the service's `/v1` wire shapes (contract 4, 5.1, 7.3 and
 * docs/contract-gaps.md §2–§9): each endpoint's method, path, query and exact JSON body, the route table
 * the signing proxy allows, and strict parsers of responses, error bodies and webhook events. The server's
 * upstream client and the browser's proxy client both use it, so it imports nothing of the server.
 */
import { codeForStatus, ContractError, isContractCode } from '../errors';
import type { Envelope } from '../crypto/message';
import type { Wrap } from '../crypto/wrap';
import { parseJson, Reader } from './read';
import {
	readAgentWrap,
	readConversation,
	readDelivery,
	readHistoryItem,
	readInvite,
	readPage,
	readReadReceipt,
	readRoster,
	responseReader,
	type ConversationStatus,
	type DeliveryRecord,
	type DownloadRecord,
	type RosterRecord,
	type UploadRecord
} from './v1-records';
import { queryString } from '../query-string';

export type { Envelope, Wrap };
export * from './v1-records';
export * from './v1-events';

// ---------------------------------------------------------------------------------------------------
// Routes (contract 4; contract-gaps §4–§9)

const ID = '([A-Za-z0-9_-]{1,128})';

export interface V1Route {
	method: 'GET' | 'POST';
	/** Matches the path without the query; groups are the ids in the path. */
	pattern: RegExp;
	/** Query parameters the route accepts. */
	query: readonly string[];
	/** Largest request body the proxy forwards, in bytes. */
	maxBody: number;
}

const route = (method: 'GET' | 'POST', path: string, query: readonly string[] = [], maxBody = 0): V1Route => ({
	method,
	pattern: new RegExp(`^${path.replaceAll('{id}', ID)}$`),
	query,
	maxBody: method === 'GET' ? 0 : maxBody || 4096
});

export const V1_ROUTES = {
	createInvite: route('POST', '/v1/invites'),
	listConversations: route('GET', '/v1/conversations', ['status', 'limit', 'cursor']),
	getConversation: route('GET', '/v1/conversations/{id}'),
	reinvite: route('POST', '/v1/conversations/{id}/reinvite'),
	rewrap: route('POST', '/v1/conversations/{id}/rewrap'),
	listMessages: route('GET', '/v1/conversations/{id}/messages', ['limit', 'before', 'after']),
	sendMessage: route('POST', '/v1/messages', [], 128 * 1024),
	markRead: route('POST', '/v1/conversations/{id}/read'),
	typing: route('POST', '/v1/conversations/{id}/typing'),
	close: route('POST', '/v1/conversations/{id}/close'),
	createAttachmentUpload: route('POST', '/v1/conversations/{id}/attachments'),
	getAttachmentDownload: route('GET', '/v1/conversations/{id}/attachments/{id}'),
	listAgentWraps: route('GET', '/v1/conversations/{id}/agent-wraps'),
	uploadAgentWraps: route('POST', '/v1/conversations/{id}/agent-wraps', [], 1024 * 1024),
	getRoster: route('GET', '/v1/roster'),
	uploadRoster: route('POST', '/v1/roster', [], 1024 * 1024),
	listDeliveries: route('GET', '/v1/deliveries', ['status', 'limit', 'cursor']),
	retryDelivery: route('POST', '/v1/deliveries/{id}/retry')
} as const satisfies Record<string, V1Route>;

export type V1RouteName = keyof typeof V1_ROUTES;

/** The route a method and path (without query) belong to, with the ids in the path. */
export function matchV1Route(method: string, path: string): { name: V1RouteName; params: string[] } | undefined {
	for (const [name, candidate] of Object.entries(V1_ROUTES) as [V1RouteName, V1Route][]) {
		if (candidate.method !== method) continue;
		const match = candidate.pattern.exec(path);
		if (match) return { name, params: match.slice(1) };
	}
	return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Requests

/** One `/v1` request: what to send (signed exactly as is) and how to read a 2xx answer. */
export interface V1Request<T> {
	route: V1RouteName;
	method: 'GET' | 'POST';
	/** `/v1/...` with the query, as signed (contract 5.1). */
	pathAndQuery: string;
	/** The exact JSON text sent; `undefined` for GET. */
	body?: string;
	parse(json: unknown): T;
}

function idSegment(value: string, what: string): string {
	new Reader({ code: 'INVALID_INPUT' }, 'request').id(value, what);
	return value;
}

function request<T>(
	routeName: V1RouteName,
	pathAndQuery: string,
	body: object | undefined,
	read: (value: unknown, r: Reader) => T
): V1Request<T> {
	const { method } = V1_ROUTES[routeName];
	return {
		route: routeName,
		method,
		pathAndQuery,
		body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
		parse: (json) => read(json, responseReader(`${method} ${pathAndQuery.split('?')[0]}`))
	};
}

const conversationPath = (conversationId: string, rest = '') => `/v1/conversations/${idSegment(conversationId, 'conversationId')}${rest}`;

export const v1 = {
	createInvite: (input: { expiresIn?: number } = {}) => request('createInvite', '/v1/invites', input, readInvite),
	listConversations: (input: { status?: ConversationStatus; limit?: number; cursor?: string } = {}) =>
		request('listConversations', `/v1/conversations${queryString(input)}`, undefined, (value, r) => readPage(value, r, readConversation)),
	getConversation: (conversationId: string) => request('getConversation', conversationPath(conversationId), undefined, readConversation),
	reinvite: (conversationId: string, input: { expiresIn?: number } = {}) =>
		request('reinvite', conversationPath(conversationId, '/reinvite'), input, readInvite),
	rewrap: (conversationId: string, wrapForUser: Wrap) =>
		request(
			'rewrap',
			conversationPath(conversationId, '/rewrap'),
			{ wrapForUser: { keyVersion: wrapForUser.keyVersion, sealed: wrapForUser.sealed } },
			readConversation
		),
	listMessages: (conversationId: string, input: { limit?: number; before?: string; after?: string } = {}) =>
		request('listMessages', conversationPath(conversationId, `/messages${queryString(input)}`), undefined, (value, r) => {
			const o = r.object(value, 'history');
			return { data: r.array(o.data, 'data').map((item) => readHistoryItem(item, r)), hasMore: r.boolean(o.hasMore, 'hasMore') };
		}),
	sendMessage: (input: {
		conversationId: string;
		contentType: 'text' | 'attachment';
		encryption: Envelope;
		attachment?: { attachmentId: string };
	}) =>
		request(
			'sendMessage',
			'/v1/messages',
			input.attachment
				? {
						conversationId: input.conversationId,
						contentType: input.contentType,
						encryption: input.encryption,
						attachment: input.attachment
					}
				: { conversationId: input.conversationId, contentType: input.contentType, encryption: input.encryption },
			readHistoryItem
		),
	markRead: (conversationId: string, upToMessageId: string) =>
		request('markRead', conversationPath(conversationId, '/read'), { upToMessageId }, (value, r) => {
			const o = r.object(value, 'read receipt');
			return {
				conversationId: r.id(o.conversationId, 'conversationId'),
				readUpToMessageId: r.id(o.readUpToMessageId, 'readUpToMessageId')
			};
		}),
	typing: (conversationId: string) =>
		request('typing', conversationPath(conversationId, '/typing'), {}, (value, r) => {
			const o = r.object(value, 'typing');
			return { conversationId: r.id(o.conversationId, 'conversationId'), typingUntil: r.string(o.typingUntil, 'typingUntil') };
		}),
	close: (conversationId: string) => request('close', conversationPath(conversationId, '/close'), {}, readConversation),
	createAttachmentUpload: (conversationId: string, size: number) =>
		request('createAttachmentUpload', conversationPath(conversationId, '/attachments'), { size }, (value, r): UploadRecord => {
			const o = r.object(value, 'upload');
			const headers = r.object(o.headers, 'headers');
			return {
				attachmentId: r.string(o.attachmentId, 'attachmentId'),
				uploadUrl: r.string(o.uploadUrl, 'uploadUrl'),
				method: r.oneOf(o.method, ['PUT'] as const, 'method'),
				headers: Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, r.string(header, `headers.${name}`)])),
				expiresIn: r.integer(o.expiresIn, 'expiresIn')
			};
		}),
	getAttachmentDownload: (conversationId: string, attachmentId: string) =>
		request(
			'getAttachmentDownload',
			conversationPath(conversationId, `/attachments/${idSegment(attachmentId, 'attachmentId')}`),
			undefined,
			(value, r): DownloadRecord => {
				const o = r.object(value, 'download');
				return {
					downloadUrl: r.string(o.downloadUrl, 'downloadUrl'),
					size: r.integer(o.size, 'size'),
					expiresIn: r.integer(o.expiresIn, 'expiresIn')
				};
			}
		),
	listAgentWraps: (conversationId: string) =>
		request('listAgentWraps', conversationPath(conversationId, '/agent-wraps'), undefined, (value, r) => {
			const o = r.object(value, 'agent wraps');
			return {
				conversationId: r.id(o.conversationId, 'conversationId'),
				wraps: r.array(o.wraps, 'wraps').map((wrap) => readAgentWrap(wrap, r))
			};
		}),
	uploadAgentWraps: (conversationId: string, input: { rosterVersion: number; wraps: { agentKeyId: string; wrap: Wrap }[] }) =>
		request('uploadAgentWraps', conversationPath(conversationId, '/agent-wraps'), input, (value, r) => {
			const o = r.object(value, 'stored agent wraps');
			return { conversationId: r.id(o.conversationId, 'conversationId'), stored: r.integer(o.stored, 'stored') };
		}),
	getRoster: () => request('getRoster', '/v1/roster', undefined, readRoster),
	uploadRoster: (roster: RosterRecord) => request('uploadRoster', '/v1/roster', roster, readRoster),
	listDeliveries: (input: { status?: DeliveryRecord['status']; limit?: number; cursor?: string } = {}) =>
		request('listDeliveries', `/v1/deliveries${queryString(input)}`, undefined, (value, r) => readPage(value, r, readDelivery)),
	retryDelivery: (deliveryId: string) =>
		request('retryDelivery', `/v1/deliveries/${idSegment(deliveryId, 'deliveryId')}/retry`, {}, readDelivery)
};

/** Readers of single answers, for code that holds a response without building its request (the proxy). */
export const parseV1Response = {
	historyItem: (json: unknown) => readHistoryItem(json, responseReader('message')),
	conversation: (json: unknown) => readConversation(json, responseReader('conversation')),
	readReceipt: (json: unknown) => readReadReceipt(json, responseReader('read receipt'))
};

/** The agent-wraps upload body, read back by the inbox to keep its copy (contract-gaps §7). */
export function parseAgentWrapsUpload(body: string): { rosterVersion: number; wraps: { agentKeyId: string; wrap: Wrap }[] } {
	const r = new Reader({ code: 'INVALID_REQUEST', status: 400 }, 'agent wraps upload');
	const o = r.object(parseJson(body, r), 'body');
	return {
		rosterVersion: r.integer(o.rosterVersion, 'rosterVersion', 1),
		wraps: r.array(o.wraps, 'wraps').map((entry) => {
			const e = r.object(entry, 'wrap entry');
			return { agentKeyId: r.string(e.agentKeyId, 'agentKeyId'), wrap: r.wrap(e.wrap, 'wrap') };
		})
	};
}

// ---------------------------------------------------------------------------------------------------
// Errors (contract 7.3, contract-gaps §2)

/**
 * The ContractError for a non-2xx answer: the body's `code` when it is one we know, otherwise a code
 * chosen from the status (the original code stays in the message).
 */
export function v1ErrorFromResponse(status: number, bodyText: string): ContractError {
	let code: unknown;
	let message = `the service answered ${status}`;
	try {
		const error = (JSON.parse(bodyText) as { error?: { code?: unknown; message?: unknown } }).error;
		code = error?.code;
		if (typeof error?.message === 'string') message = error.message;
	} catch {
		// not a JSON error body: keep the status
	}
	if (isContractCode(code)) return new ContractError(code, message, status);
	return new ContractError(codeForStatus(status, 'service'), typeof code === 'string' ? `${code}: ${message}` : message, status);
}

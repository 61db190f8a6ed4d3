/**
 * What the inbox's Node server does with each request (node/entry.ts, docs/inbox-api.md §1): it sets the
 * base security headers (http/security-headers.ts) on the response, then runs adapter-node's handler,
 * whose answers keep them unless they set their own. A handler that fails answers 500 and the process
 * goes on, as it did under polka, adapter-node's own server.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { baseSecurityHeaders } from '../http/security-headers';

export type Handler = (request: IncomingMessage, response: ServerResponse) => Promise<void> | void;

export function requestListener(handler: Handler, storageOrigins: readonly string[]): RequestListener {
	return async (request, response) => {
		for (const [name, value] of Object.entries(baseSecurityHeaders(request.url ?? '/', storageOrigins))) response.setHeader(name, value);
		try {
			await handler(request, response);
		} catch (error) {
			console.error(error);
			if (response.headersSent) response.destroy();
			else response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
		}
	};
}

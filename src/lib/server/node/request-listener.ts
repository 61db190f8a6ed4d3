/**
 * What the inbox's Node server does with each request (node/entry.ts): it gives the request its id
 * (docs/inbox-api.md §1 `X-Request-Id`), sets the base security headers (http/security-headers.ts) and the
 * id on the response, then runs adapter-node's handler in the request's context (request-context.ts),
 * whose answers keep those headers unless they set their own. When the answer is done it logs one line
 * (docs/operations.md "Logs"). A handler that fails answers 500 and the process goes on, as it did under
 * polka, adapter-node's own server.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger as Pino } from 'pino';
import { baseSecurityHeaders } from '../http/security-headers';
import { inRequest, requestIdOf, type RequestContext } from '../request-context';

export type Handler = (request: IncomingMessage, response: ServerResponse) => Promise<void> | void;

/** Routes a load balancer asks every few seconds: their lines are `debug`, kept out of the usual log. */
const PROBES = new Set(['/api/health']);

function logAnswer(log: Pino, context: RequestContext, request: IncomingMessage, response: ServerResponse, startedAt: number): void {
	const fields = {
		method: request.method,
		status: response.statusCode,
		ms: Math.round(performance.now() - startedAt),
		// the client went away before the whole answer was sent
		aborted: response.writableFinished ? undefined : true
	};
	inRequest(context, () => (PROBES.has(context.route ?? '') ? log.debug(fields, 'request') : log.info(fields, 'request')));
}

export function requestListener(handler: Handler, options: { storageOrigins: readonly string[]; log: Pino }): RequestListener {
	return async (request, response) => {
		const startedAt = performance.now();
		const context: RequestContext = { requestId: requestIdOf(request.headers['x-request-id']) };
		for (const [name, value] of Object.entries(baseSecurityHeaders(request.url ?? '/', options.storageOrigins)))
			response.setHeader(name, value);
		response.setHeader('x-request-id', context.requestId);
		response.once('close', () => logAnswer(options.log, context, request, response, startedAt));
		await inRequest(context, async () => {
			try {
				await handler(request, response);
			} catch (error) {
				options.log.error({ reason: error instanceof Error ? error.stack : String(error) }, 'the request handler failed');
				if (response.headersSent) response.destroy();
				else response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
			}
		});
	};
}

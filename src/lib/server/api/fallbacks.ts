/**
 * JSON answers for what no route handles: an unknown `/api` path (`404 NOT_FOUND`) and a method a
 * route does not have (`405 METHOD_NOT_ALLOWED`), in the error body of docs/inbox-api.md §1.
 */
import { ContractError } from '../../errors';
import { errorResponse } from '../http/responses';

export const notFound = async ({ url }: { url: URL }): Promise<Response> =>
	errorResponse(new ContractError('NOT_FOUND', `nothing at ${url.pathname}`));

export const methodNotAllowed = async ({ request, url }: { request: Request; url: URL }): Promise<Response> =>
	errorResponse(new ContractError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}`));

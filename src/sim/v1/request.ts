/**
 * What a `/v1` handler receives once the request is authenticated (contract 5.1): the company, the
 * parsed query and JSON body, and small readers of body fields that answer `400 INVALID_REQUEST`
 * with the field's name (docs/contract-gaps.md §2).
 */
import { ContractError } from '../../lib/crypto/index';
import type { SimContext } from '../context';
import type { JsonResponse } from '../http/io';
import type { Params } from '../http/router';
import type { Company } from '../state';

export interface V1Request {
	company: Company;
	method: string;
	/** The query parameters, already limited to those the route allows. */
	query: Map<string, string>;
	/** The JSON object of a POST; empty for a GET. */
	body: Record<string, unknown>;
}

export type V1Handler = (ctx: SimContext, request: V1Request, params: Params) => JsonResponse;

export interface V1Route {
	run: V1Handler;
	/** Query parameters the endpoint takes; any other is `400 INVALID_REQUEST`. */
	query: readonly string[];
}

export function requireString(body: Record<string, unknown>, field: string): string {
	const value = body[field];
	if (typeof value !== 'string' || value === '') throw new ContractError('INVALID_REQUEST', `${field} must be a non-empty string`);
	return value;
}

export function requireObject(body: Record<string, unknown>, field: string): Record<string, unknown> {
	const value = body[field];
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw new ContractError('INVALID_REQUEST', `${field} must be an object`);
	return value as Record<string, unknown>;
}

export function ok(body: unknown, status = 200): JsonResponse {
	return { status, body };
}

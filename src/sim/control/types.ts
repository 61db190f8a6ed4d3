/**
 * Shapes shared by the control API `/_sim/*` (docs/simulator.md): a handler gets the parsed JSON body
 * (or `{}`), the path parameters and the query, and answers JSON or raw bytes.
 */
import { ContractError } from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { type JsonResponse } from '../http/io';
import type { Params } from '../http/router';

export interface BytesResponse {
	status: number;
	bytes: Uint8Array;
	headers: Record<string, string>;
}

export interface ControlRequest {
	body: Record<string, unknown>;
	params: Params;
	query: URLSearchParams;
}

export interface ControlRoute {
	run: (ctx: SimContext, request: ControlRequest) => JsonResponse | BytesResponse;
	/** Largest accepted body; 1 MiB unless the route says otherwise. */
	maxBodyBytes?: number;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
	const value = body[field];
	if (value === undefined) return undefined;
	if (typeof value !== 'string') throw new ContractError('INVALID_REQUEST', `${field} must be a string`);
	return value;
}

export function requireField(body: Record<string, unknown>, field: string): string {
	const value = optionalString(body, field);
	if (value === undefined || value === '') throw new ContractError('INVALID_REQUEST', `${field} is required`);
	return value;
}

/** A webhook receiver URL: absolute `http` or `https`. */
export function requireWebhookUrl(value: unknown): string {
	let url: URL | null = null;
	try {
		url = typeof value === 'string' ? new URL(value) : null;
	} catch {
		url = null;
	}
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hash !== '') {
		throw new ContractError('INVALID_REQUEST', 'webhookUrl must be an absolute http or https URL without a fragment');
	}
	return url.href;
}

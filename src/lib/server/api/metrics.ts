/**
 * `GET /metrics` on the main port (docs/operations.md "Metrics"): the Prometheus text of this process for a
 * request with `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time; without a configured
 * token the route does not exist (404). A port of its own (`METRICS_PORT`) serves the same without a token,
 * for a network only the scraper reaches (metrics-server.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { ContractError } from '../../errors';
import { METRICS_CONTENT_TYPE, scrape } from '../metrics';
import { route } from './event';

function sameToken(given: string, expected: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

export const getMetrics = route(async (event, inbox) => {
	const { token } = inbox.config.metrics;
	if (!token) throw new ContractError('NOT_FOUND', 'nothing at /metrics');
	const given = /^Bearer (.+)$/.exec(event.request.headers.get('authorization') ?? '')?.[1];
	if (!given || !sameToken(given, token)) throw new ContractError('UNAUTHENTICATED', 'the metrics need the bearer token of METRICS_TOKEN');
	return new Response(await scrape(), { headers: { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' } });
});

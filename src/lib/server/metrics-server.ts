/**
 * The metrics on a port of their own (docs/operations.md "Metrics"): `GET /metrics` only, without a token,
 * on `METRICS_HOST` (127.0.0.1 unless the operator opens it to the scraper's network).
 */
import { createServer, type Server } from 'node:http';
import type { Logger } from './log';
import { METRICS_CONTENT_TYPE, scrape } from './metrics';

export async function startMetricsServer(port: number, host: string, log: Logger): Promise<{ close(): Promise<void> }> {
	const server: Server = createServer((request, response) => {
		if (request.method !== 'GET' || request.url !== '/metrics') {
			response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('GET /metrics only\n');
			return;
		}
		scrape().then(
			(text) => response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' }).end(text),
			() => response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('the metrics could not be read\n')
		);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => resolve());
	});
	log.info('metrics served', { host, port });
	return {
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			})
	};
}

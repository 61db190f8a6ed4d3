/**
 * The ceiling for `npm run bench:server`: a bare node:http server that reads the raw body and verifies
 * the webhook signature with the crypto core (contract 5.2 steps 1–5), stores nothing, and answers 200.
 * Run as its own process: `tsx tests/bench/hmac-ceiling.ts <port> <secret>`.
 */
import { createServer } from 'node:http';
import { verifyWebhookSignature } from '../../src/lib/crypto/hmac';
import { initCrypto } from '../../src/lib/crypto/sodium';
import { nodeHmacSha256 } from '../../src/lib/server/hmac';

const [port, secret] = process.argv.slice(2);
await initCrypto();
const server = createServer((request, response) => {
	const chunks: Buffer[] = [];
	request.on('data', (chunk: Buffer) => chunks.push(chunk));
	request.on('end', () => {
		try {
			verifyWebhookSignature(
				{
					secrets: [secret],
					header: request.headers['x-service-signature'] as string | undefined,
					body: Buffer.concat(chunks),
					now: Math.floor(Date.now() / 1000)
				},
				nodeHmacSha256
			);
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end('{"received":true}');
		} catch (error) {
			response.writeHead(401, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ error: { code: (error as { code?: string }).code } }));
		}
	});
});
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => console.log(`ceiling listening on ${port}`));

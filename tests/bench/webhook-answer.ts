/**
 * How the bench's bare servers (the ceilings of `npm run bench:server`) receive a webhook: read the raw
 * body, verify its signature with the crypto core (contract 5.2 steps 1–5), store nothing, and answer
 * 200, or 401 with the error's code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyWebhookSignature } from '../../src/lib/crypto/hmac';
import { nodeHmacSha256 } from '../../src/lib/server/hmac';

/** Answers the webhook of `request`; `accepted` hears of its body once the signature holds, before the 200. */
export function answerWebhook(
	request: IncomingMessage,
	response: ServerResponse,
	secret: string,
	accepted: (body: Buffer) => void = () => {}
): void {
	const chunks: Buffer[] = [];
	request.on('data', (chunk: Buffer) => chunks.push(chunk));
	request.on('end', () => {
		try {
			const body = Buffer.concat(chunks);
			verifyWebhookSignature(
				{
					secrets: [secret],
					header: request.headers['x-service-signature'] as string | undefined,
					body,
					now: Math.floor(Date.now() / 1000)
				},
				nodeHmacSha256
			);
			accepted(body);
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end('{"received":true}');
		} catch (error) {
			response.writeHead(401, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ error: { code: (error as { code?: string }).code } }));
		}
	});
}

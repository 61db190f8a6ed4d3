/**
 * An HTTP request whose path is sent exactly as written (fetch would normalise `..` and `%2e%2e`), to
 * test what a server does with paths a browser would never send.
 */
import { request } from 'node:http';

export function rawRequest(
	base: string,
	method: string,
	path: string,
	headers: Record<string, string> = {},
	body?: string
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
	const url = new URL(base);
	return new Promise((resolve, reject) => {
		const outgoing = request({ host: url.hostname, port: url.port, method, path, headers }, (incoming) => {
			const chunks: Buffer[] = [];
			incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
			incoming.on('end', () =>
				resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString() })
			);
		});
		outgoing.on('error', reject);
		outgoing.end(body);
	});
}

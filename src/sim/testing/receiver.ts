/**
 * A real webhook receiver for the simulator's specs (contract 5.2): records every request with its
 * raw body and headers, and answers with the statuses a test scripts (or holds the answer to make
 * the simulator time out).
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the simulator's JSON answers are read loosely; the specs assert on them */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
	headers: IncomingMessage['headers'];
	body: string;
	event: { id: string; type: string; createdAt: string; companyId: string; data: Record<string, any> };
}

export class WebhookReceiver {
	readonly received: ReceivedWebhook[] = [];
	/** Statuses for the next requests, in order; then `defaultStatus`. `'hang'` never answers. */
	readonly script: (number | 'hang')[] = [];
	defaultStatus = 200;
	private readonly server: Server;
	private readonly hanging = new Set<() => void>();

	private constructor() {
		this.server = createServer(async (request, response) => {
			const chunks: Buffer[] = [];
			for await (const chunk of request) chunks.push(chunk as Buffer);
			const body = Buffer.concat(chunks).toString('utf8');
			this.received.push({ headers: request.headers, body, event: JSON.parse(body) });
			const answer = this.script.shift() ?? this.defaultStatus;
			if (answer === 'hang') {
				this.hanging.add(() => response.destroy());
				return;
			}
			response.writeHead(answer, { 'content-type': 'text/plain' });
			response.end('ok');
		});
	}

	static async start(): Promise<WebhookReceiver> {
		const receiver = new WebhookReceiver();
		await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
		return receiver;
	}

	get url(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
	}

	ofType(type: string): ReceivedWebhook[] {
		return this.received.filter((webhook) => webhook.event.type === type);
	}

	async close(): Promise<void> {
		for (const release of this.hanging) release();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

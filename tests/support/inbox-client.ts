/**
 * A browser's view of the inbox server for integration tests: logs in, keeps the session cookie, sends
 * JSON with the page's Origin (docs/inbox-api.md §1), and reads the live event stream (§7).
 */

import { readServerSentEvents } from './server-sent-events';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely; the specs assert on them */
export interface Answer<T = any> {
	status: number;
	headers: Headers;
	body: T;
}

async function read(response: Response): Promise<Answer> {
	const text = await response.text();
	let body: unknown = text;
	try {
		body = text === '' ? null : JSON.parse(text);
	} catch {
		// not JSON: keep the text
	}
	return { status: response.status, headers: response.headers, body };
}

export class InboxClient {
	cookie: string | undefined;

	/** `origin`: the inbox's public origin, when `url` reaches one process of several behind a load balancer. */
	constructor(
		readonly url: string,
		readonly origin = url
	) {}

	async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
		const all: Record<string, string> = { origin: this.origin, ...headers };
		if (this.cookie) all.cookie = this.cookie;
		const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
		if (text !== undefined && !('content-type' in all)) all['content-type'] = 'application/json';
		const answer = await read(await fetch(this.url + path, { method, headers: all, body: text, redirect: 'manual' }));
		const setCookie = answer.headers.get('set-cookie');
		if (setCookie?.startsWith('inbox_session=')) {
			const value = setCookie.split(';')[0];
			this.cookie = value === 'inbox_session=' ? undefined : value;
		}
		return answer;
	}

	get<T = any>(path: string, headers?: Record<string, string>): Promise<Answer<T>> {
		return this.request<T>('GET', path, undefined, headers);
	}

	post<T = any>(path: string, body: unknown = {}, headers?: Record<string, string>): Promise<Answer<T>> {
		return this.request<T>('POST', path, body, headers);
	}

	patch<T = any>(path: string, body: unknown = {}, headers?: Record<string, string>): Promise<Answer<T>> {
		return this.request<T>('PATCH', path, body, headers);
	}

	put<T = any>(path: string, body: unknown = {}, headers?: Record<string, string>): Promise<Answer<T>> {
		return this.request<T>('PUT', path, body, headers);
	}

	async login(username: string, password: string): Promise<Answer> {
		return this.request('POST', '/api/session', { username, password });
	}

	/** Logs in and fails the test when that does not work. */
	static async loggedIn(url: string, username: string, password: string): Promise<InboxClient> {
		const client = new InboxClient(url);
		const answer = await client.login(username, password);
		if (answer.status !== 200) throw new Error(`login as ${username} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
		return client;
	}

	/** Opens `GET /api/events` with this client's session. */
	events(options: { lastEventId?: string } = {}): Promise<EventStream> {
		return EventStream.open(this.url, this.cookie, options.lastEventId);
	}
}

export interface ServerSentEvent {
	id?: string;
	event: string;
	data: any;
}

/** A text/event-stream read as it arrives. */
export class EventStream {
	readonly received: ServerSentEvent[] = [];
	private ended = false;
	private waiters: (() => void)[] = [];

	private constructor(
		private readonly controller: AbortController,
		readonly response: Response
	) {}

	static async open(url: string, cookie: string | undefined, lastEventId?: string): Promise<EventStream> {
		const controller = new AbortController();
		const headers: Record<string, string> = { accept: 'text/event-stream' };
		if (cookie) headers.cookie = cookie;
		if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
		const response = await fetch(`${url}/api/events`, { headers, signal: controller.signal });
		const stream = new EventStream(controller, response);
		if (response.ok && response.body) void stream.pump(response.body);
		return stream;
	}

	private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
		await readServerSentEvents(body, (events) => {
			for (const event of events) this.received.push({ ...event, data: JSON.parse(event.data) });
			this.notify();
		});
		this.ended = true;
		this.notify();
	}

	private notify(): void {
		for (const waiter of this.waiters.splice(0)) waiter();
	}

	get isEnded(): boolean {
		return this.ended;
	}

	/** Resolves with the first received event (from the start) that matches, or fails after `timeoutMs`. */
	async waitFor(match: (event: ServerSentEvent) => boolean, timeoutMs = 20_000): Promise<ServerSentEvent> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = this.received.find(match);
			if (found) return found;
			if (this.ended) throw new Error(`the event stream ended; received: ${JSON.stringify(this.received.map((event) => event.event))}`);
			const left = deadline - Date.now();
			if (left <= 0)
				throw new Error(
					`no matching event in ${timeoutMs} ms; received: ${JSON.stringify(this.received.map((event) => [event.event, event.id]))}`
				);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, left);
				this.waiters.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
	}

	/** Resolves when the server ends the stream. */
	async waitForEnd(timeoutMs = 30_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!this.ended) {
			if (Date.now() > deadline) throw new Error('the event stream did not end');
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, 200);
				this.waiters.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
	}

	close(): void {
		this.controller.abort();
	}
}

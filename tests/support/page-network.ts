/**
 * The network of a page under test, for the rune stores' specs: the store's relative `fetch` calls go to
 * the running inbox with the page's origin and session cookie, as a browser on the inbox's origin sends
 * them. The spec can see every request and break the network on purpose: hold an answer back, lose it
 * after the server acted (the connection broke before the answer arrived), or cut the request before it
 * reached the server.
 */

export interface PageRequest {
	method: string;
	/** Path and query, as the page asked for it. */
	path: string;
	headers: Headers;
}

/** The runtime's own fetch, taken before a spec puts the page's in its place. */
const networkFetch = globalThis.fetch.bind(globalThis);

type Fault = { method: string; path: RegExp } & (
	{ kind: 'lose' } | { kind: 'cut' } | { kind: 'fail'; status: number } | { kind: 'hold'; arrived: () => void; released: Promise<void> }
);

export class PageNetwork {
	readonly requests: PageRequest[] = [];
	#cookie: string | null = null;
	readonly #faults: Fault[] = [];

	constructor(readonly origin: string) {}

	/** The page's `fetch`: install it with `vi.stubGlobal('fetch', network.fetch)`. */
	readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
		// absolute addresses are the test's own calls (the simulator's control API, test clients)
		if (typeof input !== 'string' || !input.startsWith('/')) return networkFetch(input, init);
		const url = new URL(input, this.origin);
		const method = (init.method ?? 'GET').toUpperCase();
		const headers = new Headers(init.headers);
		headers.set('origin', this.origin);
		if (this.#cookie) headers.set('cookie', this.#cookie);
		const path = url.pathname + url.search;
		this.requests.push({ method, path, headers });
		const early = this.#take(['cut', 'fail'], method, path);
		if (early) {
			if (early.kind === 'fail')
				return Response.json({ error: { code: 'INTERNAL', message: 'the inbox failed this request' } }, { status: early.status });
			throw new TypeError('Failed to fetch: the connection broke before the request left');
		}
		// the answer lost or held is that of the next matching request sent, whichever answer comes back first
		const fault = this.#take(['lose', 'hold'], method, path);
		const response = await networkFetch(url, { method, headers, body: init.body, redirect: 'manual', signal: init.signal });
		for (const cookie of response.headers.getSetCookie()) {
			const [pair] = cookie.split(';');
			if (pair.startsWith('inbox_session=')) this.#cookie = pair === 'inbox_session=' ? null : pair;
			// the page's readable marker lands in its document, as a browser would put it there
			if (pair.startsWith('inbox_signed_in=') && typeof document !== 'undefined') document.cookie = cookie;
		}
		if (!fault) return response;
		if (fault.kind !== 'hold') {
			await response.arrayBuffer();
			throw new TypeError('Failed to fetch: the connection broke before the answer arrived');
		}
		fault.arrived();
		await fault.released;
		return response;
	};

	/** The first fault of one of `kinds` set for this request, taken off the list. */
	#take(kinds: readonly Fault['kind'][], method: string, path: string): Fault | undefined {
		const index = this.#faults.findIndex((fault) => kinds.includes(fault.kind) && fault.method === method && fault.path.test(path));
		return index < 0 ? undefined : this.#faults.splice(index, 1)[0];
	}

	/** The next matching request never reaches the server. */
	cutNextRequest(method: string, path: RegExp): void {
		this.#faults.push({ method, path, kind: 'cut' });
	}

	/** The inbox server answers the next matching request with `status` without acting on it (a failure of its own). */
	failNextRequest(method: string, path: RegExp, status = 500): void {
		this.#faults.push({ method, path, kind: 'fail', status });
	}

	/** The answer to the next matching request is lost after the server acted on it. */
	loseNextAnswer(method: string, path: RegExp): void {
		this.#faults.push({ method, path, kind: 'lose' });
	}

	/** The answer to the next matching request waits, once the server has answered (`arrived`), until `release()`. */
	holdNextAnswer(method: string, path: RegExp): { arrived: Promise<void>; release(): void } {
		let release!: () => void;
		let arrived!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		const answered = new Promise<void>((resolve) => (arrived = resolve));
		this.#faults.push({ method, path, kind: 'hold', arrived, released });
		return { arrived: answered, release };
	}

	/** The requests so far that match. */
	sent(method: string, path: RegExp): PageRequest[] {
		return this.requests.filter((request) => request.method === method && path.test(request.path));
	}
}

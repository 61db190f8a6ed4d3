/**
 * What the page knows of its connections (docs/inbox-api.md §11 "Connection and outbox"): whether
 * the inbox server answers, and whether the messaging service answers through the inbox's proxy,
 * learned from the page's own calls and from what the server's live stream says of the service, and what
 * the page's banner says while either does not. While either is unreachable a probe asks again every few
 * seconds; when a connection returns, listeners hear it (the outbox sends what waited).
 */
import { ContractError } from '../errors';

export type Reachability = 'reachable' | 'unreachable';

/** How often the probe asks while something is unreachable. */
export const PROBE_INTERVAL_MS = 5_000;

/** The service did not answer the inbox (a stopped service, a network between them down, a timeout). */
export function isServiceUnreachable(error: unknown): boolean {
	return error instanceof ContractError && (error.code === 'UPSTREAM_UNAVAILABLE' || error.status === 502 || error.status === 504);
}

/** The inbox server itself did not answer: `fetch` rejects with a TypeError, not an HTTP status. */
export function isServerUnreachable(error: unknown): boolean {
	return error instanceof TypeError;
}

export class Connectivity {
	#server = $state<Reachability>('reachable');
	#service = $state<Reachability>('reachable');
	private returned: Array<() => void> = [];
	private probeTimer: ReturnType<typeof setInterval> | undefined;
	private probe: (() => Promise<unknown>) | null = null;

	get server(): Reachability {
		return this.#server;
	}

	get service(): Reachability {
		return this.#service;
	}

	/** Calls `listener` each time a connection that was down answers again. */
	onReturn(listener: () => void): () => void {
		this.returned = [...this.returned, listener];
		return () => {
			this.returned = this.returned.filter((other) => other !== listener);
		};
	}

	/** The page's calls report here: an answer of the server, and whether the service answered behind it. */
	serverAnswered(serviceAnswered: boolean | null = null): void {
		const before = this.#server === 'reachable' && this.#service === 'reachable';
		this.#server = 'reachable';
		if (serviceAnswered !== null) this.#service = serviceAnswered ? 'reachable' : 'unreachable';
		this.settle(before);
	}

	/** The server says whether it reaches the service (its live stream), before any call of the page fails. */
	serviceReported(reachable: boolean): void {
		const before = this.#server === 'reachable' && this.#service === 'reachable';
		this.#service = reachable ? 'reachable' : 'unreachable';
		this.settle(before);
	}

	serverFailed(): void {
		this.#server = 'unreachable';
		this.settle(false);
	}

	/**
	 * What the page's banner says while a connection is down, the server first (without it the service
	 * cannot be reached either; a live stream that reconnects means the server does not answer it); null
	 * while both answer.
	 */
	problem(liveReconnecting: boolean): string | null {
		if (this.#server === 'unreachable' || liveReconnecting)
			return 'The inbox server cannot be reached. Replies wait in the outbox and are sent when it answers again.';
		if (this.#service === 'unreachable')
			return 'The messaging service cannot be reached. Replies wait in the outbox and are sent when it answers again.';
		return null;
	}

	/** While something is unreachable, `probe` (a cheap proxied read) runs every few seconds. */
	watch(probe: () => Promise<unknown>): () => void {
		this.probe = probe;
		this.settle(this.#server === 'reachable' && this.#service === 'reachable');
		return () => {
			this.probe = null;
			clearInterval(this.probeTimer);
			this.probeTimer = undefined;
		};
	}

	private settle(wasReachable: boolean): void {
		const reachable = this.#server === 'reachable' && this.#service === 'reachable';
		if (reachable) {
			clearInterval(this.probeTimer);
			this.probeTimer = undefined;
			if (!wasReachable) for (const listener of this.returned) listener();
		} else if (!this.probeTimer && this.probe) {
			const probe = this.probe;
			this.probeTimer = setInterval(() => void probe().catch(() => undefined), PROBE_INTERVAL_MS);
		}
	}
}

/** The page's one view of its connections. */
export const connectivity = new Connectivity();

/**
 * What the page knows of its connections (docs/inbox-api.md §11 "Connection and outbox"): whether
 * the browser is online, whether the inbox server answers (its calls and its live stream), and whether
 * the messaging service answers through the inbox's proxy, learned from the page's own calls and from
 * what the server's live stream says of the service — folded into one connection state, the only one the
 * page shows. While something is unreachable a probe asks again every few seconds; when a connection
 * returns, listeners hear it (the outbox sends what waited).
 */
import { ContractError } from '../errors';

export type Reachability = 'reachable' | 'unreachable';

/** Where the page's live stream stands (events.svelte.ts keeps it). */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

/** The page's one connection state: replies go out at once only when it is `connected`. */
export type ConnectionState = 'connected' | 'reconnecting' | 'service-unreachable' | 'server-unreachable' | 'offline';

export interface ConnectionFacts {
	online: boolean;
	server: Reachability;
	service: Reachability;
	/** The live stream's status, or null where the page watches none. */
	live: LiveStatus | null;
}

/** The worst of what is known, the nearest link first: the browser's network, the inbox server, its live stream, the service. */
export function connectionState({ online, server, service, live }: ConnectionFacts): ConnectionState {
	if (!online) return 'offline';
	if (server === 'unreachable') return 'server-unreachable';
	if (live !== null && live !== 'live') return 'reconnecting';
	if (service === 'unreachable') return 'service-unreachable';
	return 'connected';
}

/** What the page says of each state: a short label and, unless connected, what it means for replies. */
export const CONNECTION_STATE_TEXT: Record<ConnectionState, { label: string; detail: string | null }> = {
	connected: { label: 'Connected', detail: null },
	reconnecting: {
		label: 'Reconnecting…',
		detail: 'Reconnecting to the inbox server. Replies wait in the outbox and are sent when it answers again.'
	},
	'service-unreachable': {
		label: 'Service unreachable',
		detail: 'The messaging service cannot be reached. Replies wait in the outbox and are sent when it answers again.'
	},
	'server-unreachable': {
		label: 'Server unreachable',
		detail: 'The inbox server cannot be reached. Replies wait in the outbox and are sent when it answers again.'
	},
	offline: {
		label: 'Offline',
		detail: 'This device is offline. Replies wait in the outbox and are sent when it is back online.'
	}
};

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
	#live = $state<LiveStatus | null>(null);
	#online = $state(typeof navigator === 'undefined' ? true : navigator.onLine);
	private returned: Array<() => void> = [];
	private probeTimer: ReturnType<typeof setInterval> | undefined;
	private probe: (() => Promise<unknown>) | null = null;

	get server(): Reachability {
		return this.#server;
	}

	get service(): Reachability {
		return this.#service;
	}

	/** All that is known, as one state. */
	get state(): ConnectionState {
		return connectionState({ online: this.#online, server: this.#server, service: this.#service, live: this.#live });
	}

	/** The live stream's status as it changes (null when the page stops watching it). */
	liveReported(status: LiveStatus | null): void {
		const before = this.state === 'connected';
		this.#live = status;
		this.settle(before);
	}

	/** The browser's own word on its network (`online` and `offline` events). */
	onlineReported(online: boolean): void {
		const before = this.state === 'connected';
		this.#online = online;
		this.settle(before);
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
		const before = this.state === 'connected';
		this.#server = 'reachable';
		if (serviceAnswered !== null) this.#service = serviceAnswered ? 'reachable' : 'unreachable';
		this.settle(before);
	}

	/** The server says whether it reaches the service (its live stream), before any call of the page fails. */
	serviceReported(reachable: boolean): void {
		const before = this.state === 'connected';
		this.#service = reachable ? 'reachable' : 'unreachable';
		this.settle(before);
	}

	serverFailed(): void {
		const before = this.state === 'connected';
		this.#server = 'unreachable';
		this.settle(before);
	}

	/** While something is unreachable, `probe` (a cheap proxied read) runs every few seconds. */
	watch(probe: () => Promise<unknown>): () => void {
		this.probe = probe;
		const online = () => this.onlineReported(true);
		const offline = () => this.onlineReported(false);
		addEventListener('online', online);
		addEventListener('offline', offline);
		this.#online = navigator.onLine;
		this.settle(this.state === 'connected');
		return () => {
			removeEventListener('online', online);
			removeEventListener('offline', offline);
			this.probe = null;
			clearInterval(this.probeTimer);
			this.probeTimer = undefined;
		};
	}

	private settle(wasConnected: boolean): void {
		if (this.state === 'connected') {
			clearInterval(this.probeTimer);
			this.probeTimer = undefined;
			if (!wasConnected) for (const listener of this.returned) listener();
		} else if (!this.probeTimer && this.probe) {
			const probe = this.probe;
			this.probeTimer = setInterval(() => void probe().catch(() => undefined), PROBE_INTERVAL_MS);
		}
	}
}

/** The page's one view of its connections. */
export const connectivity = new Connectivity();

/**
 * The page's EventSource for the rune stores' specs (happy-dom has none): `GET /api/events` through the
 * page's network (PageNetwork: the inbox's origin and session cookie), each event dispatched as a
 * MessageEvent with the stream's last event id, as a browser does (docs/inbox-api.md §7). A stream that
 * ends or fails is CLOSED with an `error` event; the page's own code decides when to open another.
 */
import type { PageNetwork } from './page-network';
import { readServerSentEvents } from './server-sent-events';

export type PageEventSourceClass = ReturnType<typeof pageEventSource>;

/** An EventSource class over `network`: install it with `vi.stubGlobal('EventSource', pageEventSource(network))`. */
export function pageEventSource(network: PageNetwork) {
	return class PageEventSource extends EventTarget {
		static readonly CONNECTING = 0;
		static readonly OPEN = 1;
		static readonly CLOSED = 2;
		/** Every stream opened, oldest first. */
		static readonly opened: PageEventSource[] = [];
		readyState = PageEventSource.CONNECTING;
		readonly #aborted = new AbortController();
		#lastEventId = '';

		constructor(readonly url: string) {
			super();
			PageEventSource.opened.push(this);
			void this.#read();
		}

		async #read(): Promise<void> {
			try {
				const response = await network.fetch(this.url, { headers: { accept: 'text/event-stream' }, signal: this.#aborted.signal });
				if (response.ok && response.body && this.readyState === PageEventSource.CONNECTING) {
					this.readyState = PageEventSource.OPEN;
					await readServerSentEvents(response.body, (events) => events.forEach((event) => this.#dispatch(event)));
				}
			} catch {
				// refused or cut: closed below
			}
			if (this.readyState === PageEventSource.CLOSED) return;
			this.readyState = PageEventSource.CLOSED;
			this.dispatchEvent(new Event('error'));
		}

		#dispatch(event: { id?: string; event: string; data: string }): void {
			if (this.readyState !== PageEventSource.OPEN) return;
			if (event.id !== undefined) this.#lastEventId = event.id;
			this.dispatchEvent(new MessageEvent(event.event, { data: event.data, lastEventId: this.#lastEventId }));
		}

		close(): void {
			this.readyState = PageEventSource.CLOSED;
			this.#aborted.abort();
		}
	};
}

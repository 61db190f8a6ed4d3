/**
 * What every part of the simulator shares: the state, the clock and its timers, webhook delivery,
 * and the simulator's public URL (for invitation links and presigned storage URLs, contract 2.7, 2.8).
 * Changes are told to the Store itself (`store.changed`), which the persistence listens to.
 */
import type { SimClock, SimTimers } from './clock';
import type { Store } from './state';
import type { WebhookDispatcher } from './webhooks/delivery';

export interface SimContext {
	readonly store: Store;
	readonly clock: SimClock;
	readonly timers: SimTimers;
	readonly webhooks: WebhookDispatcher;
	/** Origin of the simulator as clients reach it, without a trailing slash. */
	readonly publicUrl: string;
}

/**
 * The tabs of one browser session telling each other about the key (docs/crypto-worker.md "Unlock once
 * per browser session"): a lock or a sign-out in one tab reaches every other tab at once, and an unlock
 * lets the locked ones open the key without the passphrase. The messages carry no secret, only what happened.
 */

export type SessionTabMessage = { type: 'locked'; reason: 'idle' | 'manual' } | { type: 'unlocked' } | { type: 'signed-out' };

export const SESSION_TABS_CHANNEL = 'inbox-session';

let channel: BroadcastChannel | null = null;

function sessionChannel(): BroadcastChannel | null {
	if (typeof BroadcastChannel === 'undefined') return null;
	channel ??= new BroadcastChannel(SESSION_TABS_CHANNEL);
	return channel;
}

/** Tells the other tabs (a tab never hears its own messages). */
export function tellOtherTabs(message: SessionTabMessage): void {
	sessionChannel()?.postMessage(message);
}

/** Hears the other tabs for as long as the page lives. */
export function hearOtherTabs(handler: (message: SessionTabMessage) => void): void {
	sessionChannel()?.addEventListener('message', (event: MessageEvent<SessionTabMessage>) => handler(event.data));
}

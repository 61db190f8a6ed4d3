/**
 * What a page asked the browser to notify and play (docs/inbox-api.md §11 "Notifications"), recorded
 * around the real APIs: each desktop notification's words and the number of tones, in `window`.
 */
import type { BrowserContext, Page } from '@playwright/test';

declare global {
	interface Window {
		notified: Array<{ title: string; body: string; tag: string; notification: Notification }>;
		tones: number;
	}
}

/** Lets the inbox's origin notify, and records every notification and tone the page makes from its next load on. */
export async function recordNotifications(page: Page, context: BrowserContext, origin: string): Promise<void> {
	await context.grantPermissions(['notifications'], { origin });
	await page.addInitScript(() => {
		const Real = window.Notification;
		window.notified = [];
		window.tones = 0;
		class Recorded extends Real {
			constructor(title: string, options: NotificationOptions = {}) {
				super(title, options);
				window.notified.push({ title, body: options.body ?? '', tag: options.tag ?? '', notification: this });
			}
		}
		Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
		Object.defineProperty(Recorded, 'requestPermission', { value: () => Real.requestPermission() });
		window.Notification = Recorded;
		const createOscillator = AudioContext.prototype.createOscillator;
		AudioContext.prototype.createOscillator = function (this: AudioContext) {
			window.tones++;
			return createOscillator.call(this);
		};
	});
}

/** The words of the notifications the page made so far. */
export function notified(page: Page): Promise<{ title: string; body: string; tag: string }[]> {
	return page.evaluate(() => window.notified.map(({ title, body, tag }) => ({ title, body, tag })));
}

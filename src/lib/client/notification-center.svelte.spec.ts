/**
 * The browser's side of notifications (docs/inbox-api.md §11 "Notifications"), in a page of happy-dom
 * with the browser's Notification and AudioContext recorded: each agent's choice kept in this browser,
 * desktop notifications only when the browser allows them, words that carry no content, a short tone,
 * and the unread count in the tab's title and icon.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '$test-support/memory-storage';
import { NotificationCenter } from './notification-center.svelte';

/** The browser's Notification, recorded: what was shown, and what the browser answers when asked. */
class RecordedNotification {
	static permission: NotificationPermission = 'default';
	static answer: NotificationPermission = 'granted';
	static asked = 0;
	static shown: RecordedNotification[] = [];
	onclick: (() => void) | null = null;
	closed = false;

	constructor(
		readonly title: string,
		readonly options: NotificationOptions
	) {
		RecordedNotification.shown.push(this);
	}

	static async requestPermission(): Promise<NotificationPermission> {
		RecordedNotification.asked++;
		return (RecordedNotification.permission = RecordedNotification.answer);
	}

	close(): void {
		this.closed = true;
	}
}

/** Web Audio, recorded: the notes of each tone. */
class RecordedAudio {
	static notes: number[] = [];
	readonly currentTime = 0;
	readonly destination = {};

	createOscillator() {
		const frequency = { value: 0 };
		return {
			frequency,
			connect: (next: unknown) => next,
			start: () => RecordedAudio.notes.push(frequency.value),
			stop: () => undefined
		};
	}

	createGain() {
		return { gain: { setValueAtTime: () => undefined, exponentialRampToValueAtTime: () => undefined }, connect: (next: unknown) => next };
	}
}

const ALERT = { kind: 'message', conversationId: 'conv_1' } as const;

let storage: MemoryStorage;

beforeEach(() => {
	storage = new MemoryStorage();
	Object.assign(RecordedNotification, { permission: 'default', answer: 'granted', asked: 0, shown: [] });
	RecordedAudio.notes = [];
});

afterEach(() => {
	vi.unstubAllGlobals();
});

describe("NotificationCenter: the agent's choices and the browser's permission", () => {
	it("keeps each agent's choice in this browser; everything starts off, and a browser without notifications says so", () => {
		const ada = new NotificationCenter('acc_ada', storage);
		expect([ada.settings, ada.permission]).toEqual([{ desktop: false, sound: false }, 'unsupported']);
		ada.setSound(true);
		expect(new NotificationCenter('acc_ada', storage).settings).toEqual({ desktop: false, sound: true });
		expect(new NotificationCenter('acc_ben', storage).settings).toEqual({ desktop: false, sound: false });
	});

	it('turns desktop notifications on only when the browser allows them, asking it first', async () => {
		vi.stubGlobal('Notification', RecordedNotification);
		RecordedNotification.answer = 'denied';
		const center = new NotificationCenter('acc_ada', storage);
		expect(center.permission).toBe('default');
		await center.setDesktop(true);
		expect([center.settings.desktop, center.permission, RecordedNotification.asked]).toEqual([false, 'denied', 1]);

		RecordedNotification.answer = 'granted';
		await center.setDesktop(true);
		expect([center.settings.desktop, center.permission, RecordedNotification.asked]).toEqual([true, 'granted', 2]);
		await center.setDesktop(true);
		expect(RecordedNotification.asked).toBe(2); // granted already: not asked again
		expect(new NotificationCenter('acc_ada', storage).settings.desktop).toBe(true);
		await center.setDesktop(false);
		expect([center.settings.desktop, RecordedNotification.asked]).toEqual([false, 2]);
	});
});

describe('NotificationCenter: what the agent is told', () => {
	it('notifies with the same content-free words for every customer, tagged by conversation; a click opens it', async () => {
		vi.stubGlobal('Notification', RecordedNotification);
		const focus = vi.spyOn(window, 'focus').mockImplementation(() => undefined);
		const center = new NotificationCenter('acc_ada', storage);
		const opened: string[] = [];
		center.alert(ALERT, (id) => opened.push(id));
		expect(RecordedNotification.shown).toEqual([]); // not opted in

		await center.setDesktop(true);
		center.alert(ALERT, (id) => opened.push(id));
		center.alert({ kind: 'conversation', conversationId: 'conv_2' }, (id) => opened.push(id));
		expect(RecordedNotification.shown.map(({ title, options }) => [title, options.body, options.tag])).toEqual([
			['New message from a customer', 'Open the inbox to read it.', 'conv_1'],
			['New conversation', 'A customer started a conversation. Open the inbox to read it.', 'conv_2']
		]);
		const [first] = RecordedNotification.shown;
		first.onclick?.();
		expect([opened, first.closed, focus.mock.calls.length]).toEqual([['conv_1'], true, 1]);

		// the browser's permission taken back in its settings: the choice stays, nothing is shown
		RecordedNotification.permission = 'denied';
		center.alert(ALERT, (id) => opened.push(id));
		expect([RecordedNotification.shown.length, center.settings.desktop]).toEqual([2, true]);
	});

	it('plays two short notes when sound is switched on and with each alert while it is on; without audio it stays silent', () => {
		vi.stubGlobal('AudioContext', RecordedAudio);
		const center = new NotificationCenter('acc_ada', storage);
		center.alert(ALERT, () => undefined);
		expect(RecordedAudio.notes).toEqual([]);
		center.setSound(true);
		center.alert(ALERT, () => undefined);
		expect(RecordedAudio.notes).toEqual([880, 1320, 880, 1320]);
		center.setSound(false);
		center.alert(ALERT, () => undefined);
		expect(RecordedAudio.notes).toHaveLength(4);

		vi.unstubAllGlobals();
		const silent = new NotificationCenter('acc_ben', storage);
		expect(() => silent.setSound(true)).not.toThrow();
		expect(silent.settings.sound).toBe(true);
	});

	it("counts unread conversations in the tab's title and icon, whatever title the page sets, until it stops", async () => {
		const changed = () => new Promise((resolve) => setTimeout(resolve));
		document.title = 'Inbox';
		const icon = Object.assign(document.createElement('link'), { rel: 'icon', href: '/favicon.svg' });
		document.head.append(icon);
		const plainIcon = icon.href;
		const center = new NotificationCenter('acc_ada', storage);

		const stop = center.showUnread(3);
		expect(document.title).toBe('(3) Inbox');
		expect(decodeURIComponent(icon.href)).toMatch(/^data:image\/svg\+xml,.*>3<\/text>/);
		document.title = 'Customer Q4jQ · Inbox';
		await changed();
		expect(document.title).toBe('(3) Customer Q4jQ · Inbox');

		stop();
		expect([document.title, icon.href]).toEqual(['Customer Q4jQ · Inbox', plainIcon]);
		document.title = 'Inbox';
		await changed();
		expect(document.title).toBe('Inbox');
		center.showUnread(0)();
		expect(document.title).toBe('Inbox');
		icon.remove();
	});
});

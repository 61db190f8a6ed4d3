/**
 * The browser's side of notifications (docs/inbox-api.md §11 "Notifications"): the agent's
 * settings, the permission the browser gave, a desktop notification with content-free words, a
 * short tone made with Web Audio (no sound file to fetch), and the unread count in the tab's title and icon.
 */
import {
	alertText,
	faviconWithUnread,
	loadNotificationSettings,
	saveNotificationSettings,
	titleWithUnread,
	type Alert,
	type NotificationSettings
} from './notifications';

export type NotificationPermissionState = NotificationPermission | 'unsupported';

const browserNotification = (): typeof Notification | undefined => (typeof Notification === 'undefined' ? undefined : Notification);

export class NotificationCenter {
	#settings = $state<NotificationSettings>({ desktop: false, sound: false });
	#permission = $state<NotificationPermissionState>('unsupported');
	private audio: AudioContext | undefined;

	constructor(
		private readonly accountId: string,
		private readonly storage: Pick<Storage, 'getItem' | 'setItem'> = localStorage
	) {
		this.#settings = loadNotificationSettings(storage, accountId);
		this.#permission = browserNotification()?.permission ?? 'unsupported';
	}

	get settings(): NotificationSettings {
		return this.#settings;
	}

	/** What the browser allows: `denied` can only be changed in the browser's site settings. */
	get permission(): NotificationPermissionState {
		return this.#permission;
	}

	/** Turns desktop notifications on (asking the browser first) or off; on only sticks when the browser allows it. */
	async setDesktop(on: boolean): Promise<void> {
		const api = browserNotification();
		if (on && api && api.permission !== 'granted') this.#permission = await api.requestPermission();
		this.save({ ...this.#settings, desktop: on && this.#permission === 'granted' });
	}

	setSound(on: boolean): void {
		this.save({ ...this.#settings, sound: on });
		if (on) this.tone();
	}

	/** Tells the agent about `alert` as they chose; `open` shows its conversation when the notification is clicked. */
	alert(alert: Alert, open: (conversationId: string) => void): void {
		if (this.#settings.sound) this.tone();
		const api = browserNotification();
		if (!this.#settings.desktop || api?.permission !== 'granted') return;
		const { title, body } = alertText(alert);
		const notification = new api(title, { body, tag: alert.conversationId, icon: '/favicon.svg' });
		notification.onclick = () => {
			window.focus();
			open(alert.conversationId);
			notification.close();
		};
	}

	/**
	 * Shows `unread` conversations in the tab's title, whatever title the page sets meanwhile, and in its
	 * icon; the function returned puts both back.
	 */
	showUnread(unread: number): () => void {
		const apply = () => {
			const next = titleWithUnread(document.title, unread);
			if (next !== document.title) document.title = next;
		};
		apply();
		const observer = new MutationObserver(apply);
		observer.observe(document.head, { subtree: true, childList: true, characterData: true });
		const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
		const plainIcon = icon?.href;
		if (icon) icon.href = faviconWithUnread(unread);
		return () => {
			observer.disconnect();
			document.title = titleWithUnread(document.title, 0);
			if (icon && plainIcon) icon.href = plainIcon;
		};
	}

	private save(settings: NotificationSettings): void {
		this.#settings = settings;
		saveNotificationSettings(this.storage, this.accountId, settings);
	}

	/** Two short notes, quiet. */
	private tone(): void {
		try {
			this.audio ??= new AudioContext();
			const start = this.audio.currentTime;
			for (const [offset, frequency] of [
				[0, 880],
				[0.12, 1320]
			]) {
				const oscillator = this.audio.createOscillator();
				const gain = this.audio.createGain();
				oscillator.frequency.value = frequency;
				gain.gain.setValueAtTime(0.08, start + offset);
				gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.18);
				oscillator.connect(gain).connect(this.audio.destination);
				oscillator.start(start + offset);
				oscillator.stop(start + offset + 0.2);
			}
		} catch {
			// a browser without audio output stays silent
		}
	}
}

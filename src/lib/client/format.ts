/**
 * Small display helpers of the inbox: sizes, times relative to now, short conversation labels and
 * fingerprints in groups (contract 2.2 display form).
 */

export function formatBytes(bytes: number): string {
	if (!Number.isFinite(bytes) || bytes < 0) return '';
	if (bytes < 1024) return `${bytes} B`;
	const units = ['KiB', 'MiB', 'GiB'];
	let value = bytes / 1024;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "now", "5 min", "14:05" (today), "Mon" (this week), "12 Nov" (this year), "12 Nov 2025". */
export function formatRelative(iso: string | null | undefined, now: Date = new Date()): string {
	if (!iso) return '';
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return '';
	const elapsed = now.getTime() - date.getTime();
	if (elapsed < MINUTE) return 'now';
	if (elapsed < HOUR) return `${Math.floor(elapsed / MINUTE)} min`;
	if (date.toDateString() === now.toDateString()) return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
	if (elapsed < 6 * DAY) return date.toLocaleDateString(undefined, { weekday: 'short' });
	if (date.getFullYear() === now.getFullYear()) return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
	return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}

/** The local calendar day of an instant, to group messages by day. */
export function dayOf(iso: string): string {
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? '' : date.toDateString();
}

/** "Today", "Yesterday" or the date, for the separators of a thread. */
export function formatDay(iso: string, now: Date = new Date()): string {
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return '';
	if (date.toDateString() === now.toDateString()) return 'Today';
	const yesterday = new Date(now.getTime() - DAY);
	if (date.toDateString() === yesterday.toDateString()) return 'Yesterday';
	return date.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
}

/** "14:05" (the day is in the separator above). */
export function formatClock(iso: string): string {
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** The current time as ISO 8601 UTC. */
export function nowIso(): string {
	return new Date().toISOString();
}

export function formatDateTime(iso: string | null | undefined): string {
	if (!iso) return '';
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** `conv_AbCdEfGh12345678` → `AbCd EfGh`: enough to tell conversations apart and read out loud. */
export function shortConversationLabel(conversationId: string): string {
	const body = conversationId.replace(/^conv_/, '');
	return `${body.slice(0, 4)} ${body.slice(4, 8)}`.trim();
}

/** A stable hue for a conversation's avatar, so a row is recognisable at a glance. */
export function avatarHue(id: string): number {
	let hash = 0;
	for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
	return hash % 360;
}

/** 32 fingerprint bytes as lowercase hex in 16 groups of 4 (contract 2.2), from their b64u form. */
export function fingerprintFromB64u(b64u: string): string | null {
	if (!/^[A-Za-z0-9_-]{43}$/.test(b64u)) return null;
	const binary = atob(b64u.replaceAll('-', '+').replaceAll('_', '/') + '=');
	let hex = '';
	for (let i = 0; i < binary.length; i++) hex += binary.charCodeAt(i).toString(16).padStart(2, '0');
	return hex.match(/.{4}/g)?.join(' ') ?? null;
}

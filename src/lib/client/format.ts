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

/**
 * The formatters, made once: `toLocale…String` builds a new one at every call, which thousands of list
 * rows and every live event would pay for.
 */
const CLOCK = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const WEEKDAY = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
const DAY_MONTH = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const DAY_MONTH_YEAR = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
const LONG_DAY = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const COUNT = new Intl.NumberFormat();

/** A count in the reader's locale ("10,029"), as `toLocaleString()` would write it, with one formatter for all. */
export function formatCount(count: number): string {
	return COUNT.format(count);
}

/** "now", "5 min", "14:05" (today), "Mon" (this week), "12 Nov" (this year), "12 Nov 2025". */
export function formatRelative(iso: string | null | undefined, now: Date = new Date()): string {
	if (!iso) return '';
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return '';
	const elapsed = now.getTime() - date.getTime();
	if (elapsed < MINUTE) return 'now';
	if (elapsed < HOUR) return `${Math.floor(elapsed / MINUTE)} min`;
	if (date.toDateString() === now.toDateString()) return CLOCK.format(date);
	if (elapsed < 6 * DAY) return WEEKDAY.format(date);
	if (date.getFullYear() === now.getFullYear()) return DAY_MONTH.format(date);
	return DAY_MONTH_YEAR.format(date);
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
	return LONG_DAY.format(date);
}

/** "14:05" (the day is in the separator above). */
export function formatClock(iso: string): string {
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? '' : CLOCK.format(date);
}

/** The current time as ISO 8601 UTC. */
export function nowIso(): string {
	return new Date().toISOString();
}

export function formatDateTime(iso: string | null | undefined): string {
	if (!iso) return '';
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? '' : DATE_TIME.format(date);
}

/** Words for a customer's name until a profile gives one: read out loud, never telling anything of the customer. */
const NAME_ADJECTIVES = [
	'Amber',
	'Azure',
	'Bold',
	'Brave',
	'Bright',
	'Brisk',
	'Calm',
	'Cheerful',
	'Clever',
	'Cosmic',
	'Crimson',
	'Crisp',
	'Dapper',
	'Dawn',
	'Deep',
	'Eager',
	'Early',
	'Easy',
	'Electric',
	'Emerald',
	'Even',
	'Fair',
	'Fancy',
	'Fast',
	'Fern',
	'Fine',
	'Firm',
	'Fleet',
	'Fresh',
	'Frosty',
	'Gentle',
	'Giant',
	'Glad',
	'Golden',
	'Grand',
	'Green',
	'Happy',
	'Hazel',
	'Honest',
	'Humble',
	'Ivory',
	'Jade',
	'Jolly',
	'Keen',
	'Kind',
	'Lemon',
	'Lively',
	'Lucky',
	'Lunar',
	'Merry',
	'Mild',
	'Mint',
	'Misty',
	'Modest',
	'Neat',
	'Nimble',
	'Noble',
	'North',
	'Ocean',
	'Olive',
	'Onyx',
	'Opal',
	'Orange',
	'Patient',
	'Pearl',
	'Plum',
	'Polar',
	'Proud',
	'Quick',
	'Quiet',
	'Rapid',
	'Rosy',
	'Royal',
	'Ruby',
	'Rustic',
	'Sage',
	'Sandy',
	'Scarlet',
	'Silent',
	'Silver',
	'Simple',
	'Sleek',
	'Smooth',
	'Snowy',
	'Solar',
	'Sonic',
	'Spring',
	'Steady',
	'Stone',
	'Sunny',
	'Swift',
	'Teal',
	'Tidy',
	'Topaz',
	'True',
	'Urban',
	'Valiant',
	'Velvet',
	'Violet',
	'Vivid',
	'Warm',
	'Wavy',
	'West',
	'Wild',
	'Windy',
	'Wise',
	'Witty',
	'Young',
	'Zesty'
];
const NAME_NOUNS = [
	'Badger',
	'Beacon',
	'Birch',
	'Bison',
	'Brook',
	'Canyon',
	'Cedar',
	'Comet',
	'Condor',
	'Coral',
	'Crane',
	'Creek',
	'Dolphin',
	'Eagle',
	'Falcon',
	'Finch',
	'Fjord',
	'Fox',
	'Garden',
	'Gazelle',
	'Glacier',
	'Harbor',
	'Hawk',
	'Heron',
	'Hill',
	'Ibis',
	'Island',
	'Jaguar',
	'Kestrel',
	'Kite',
	'Koala',
	'Lagoon',
	'Lark',
	'Lily',
	'Lynx',
	'Maple',
	'Marten',
	'Meadow',
	'Meteor',
	'Moose',
	'Moss',
	'Nebula',
	'Newt',
	'Oak',
	'Orca',
	'Osprey',
	'Otter',
	'Owl',
	'Panda',
	'Panther',
	'Parrot',
	'Pebble',
	'Pelican',
	'Pine',
	'Planet',
	'Plover',
	'Puffin',
	'Quail',
	'Rabbit',
	'Raven',
	'Reef',
	'River',
	'Robin',
	'Sail',
	'Salmon',
	'Sparrow',
	'Spruce',
	'Squirrel',
	'Star',
	'Stork',
	'Summit',
	'Swan',
	'Thistle',
	'Thrush',
	'Tiger',
	'Tulip',
	'Valley',
	'Walrus',
	'Willow',
	'Wolf',
	'Wren',
	'Yak',
	'Zebra',
	'Acorn',
	'Anchor',
	'Arrow',
	'Aspen',
	'Atlas',
	'Aurora',
	'Bamboo',
	'Basil',
	'Breeze',
	'Canoe',
	'Cloud',
	'Compass',
	'Cricket',
	'Delta',
	'Dune',
	'Ember',
	'Feather',
	'Forest',
	'Galaxy',
	'Grove',
	'Horizon',
	'Iris',
	'Jasmine',
	'Juniper',
	'Lantern',
	'Lotus',
	'Mango',
	'Marble',
	'Melody',
	'Mesa',
	'Oasis',
	'Orchid',
	'Prairie',
	'Quartz',
	'Rainbow'
];

/**
 * `conv_AbCdEfGh12345678` → `Amber Heron`: a name a person can say aloud for a customer without a profile,
 * the same wherever the conversation shows (two of 109 × 118; the avatar's colour tells apart
 * the rare two that share one).
 */
export function shortConversationLabel(conversationId: string): string {
	let hash = 2166136261;
	for (let i = 0; i < conversationId.length; i++) hash = Math.imul(hash ^ conversationId.charCodeAt(i), 16777619) >>> 0;
	return `${NAME_ADJECTIVES[hash % NAME_ADJECTIVES.length]} ${NAME_NOUNS[Math.floor(hash / NAME_ADJECTIVES.length) % NAME_NOUNS.length]}`;
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

/**
 * The idle lock: after a stretch without keyboard, pointer or scroll activity in any tab of this
 * browser the agent's key is locked and the worker wiped (docs/crypto-worker.md "Unlock once per browser
 * session": the lock then reaches every tab). Measured against the wall clock, so a background tab
 * whose timers are throttled still locks on time; the tabs share their latest activity through
 * localStorage (a time, nothing else), so reading in one tab keeps the others from locking.
 */

export const IDLE_LOCK_SETTING = 'inbox:idle-lock-seconds';
/** When any tab last saw activity (milliseconds since the epoch). */
export const LAST_ACTIVITY_SETTING = 'inbox:last-activity';
export const DEFAULT_IDLE_LOCK_SECONDS = 15 * 60;
const ACTIVITY_EVENTS = ['pointerdown', 'keydown', 'wheel', 'touchstart', 'pointermove'] as const;

/** The configured idle time in seconds (5 s … 24 h), or the default. */
export function idleLockSeconds(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): number {
	const value = Number(storage?.getItem(IDLE_LOCK_SETTING));
	return Number.isInteger(value) && value >= 5 && value <= 86_400 ? value : DEFAULT_IDLE_LOCK_SECONDS;
}

/** The latest activity seen by any tab, or 0. */
function sharedActivity(storage: Pick<Storage, 'getItem'> | undefined): number {
	const value = Number(storage?.getItem(LAST_ACTIVITY_SETTING));
	return Number.isFinite(value) ? value : 0;
}

/** Starts watching; `onIdle` runs once per idle stretch. Returns the stop function. */
export function watchIdle(
	onIdle: () => void,
	seconds: () => number = () => idleLockSeconds(),
	storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = globalThis.localStorage
): () => void {
	let lastActivity = Date.now();
	let fired = false;
	let lastShared = 0;
	const activity = () => {
		const now = Date.now();
		lastActivity = now;
		fired = false;
		// events come in bursts (pointermove constantly): the other tabs hear of them at most once a second
		if (now - lastShared < 1000) return;
		lastShared = now;
		storage?.setItem(LAST_ACTIVITY_SETTING, String(now));
	};
	for (const name of ACTIVITY_EVENTS) window.addEventListener(name, activity, { passive: true, capture: true });
	const check = () => {
		lastActivity = Math.max(lastActivity, sharedActivity(storage));
		if (!fired && Date.now() - lastActivity >= seconds() * 1000) {
			fired = true;
			onIdle();
		}
	};
	const interval = setInterval(check, 1000);
	document.addEventListener('visibilitychange', check);
	return () => {
		clearInterval(interval);
		document.removeEventListener('visibilitychange', check);
		for (const name of ACTIVITY_EVENTS) window.removeEventListener(name, activity, { capture: true });
	};
}

/**
 * The idle lock: after a stretch without keyboard, pointer or scroll activity the
 * agent's key is locked and the worker wiped. Measured against the wall clock, so a background tab
 * whose timers are throttled still locks on time.
 */

export const IDLE_LOCK_SETTING = 'inbox:idle-lock-seconds';
export const DEFAULT_IDLE_LOCK_SECONDS = 15 * 60;
const ACTIVITY_EVENTS = ['pointerdown', 'keydown', 'wheel', 'touchstart', 'pointermove'] as const;

/** The configured idle time in seconds (5 s … 24 h), or the default. */
export function idleLockSeconds(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): number {
	const value = Number(storage?.getItem(IDLE_LOCK_SETTING));
	return Number.isInteger(value) && value >= 5 && value <= 86_400 ? value : DEFAULT_IDLE_LOCK_SECONDS;
}

/** Starts watching; `onIdle` runs once per idle stretch. Returns the stop function. */
export function watchIdle(onIdle: () => void, seconds: () => number = () => idleLockSeconds()): () => void {
	let lastActivity = Date.now();
	let fired = false;
	let lastMove = 0;
	const activity = (event: Event) => {
		// pointermove fires constantly: count it at most once a second
		if (event.type === 'pointermove') {
			const now = Date.now();
			if (now - lastMove < 1000) return;
			lastMove = now;
		}
		lastActivity = Date.now();
		fired = false;
	};
	for (const name of ACTIVITY_EVENTS) window.addEventListener(name, activity, { passive: true, capture: true });
	const check = () => {
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

/**
 * Snoozes end on time (docs/inbox-api.md §4 "Lifecycle"): every process looks for ended snoozes every
 * `SNOOZE_CHECK_MS`, and between two looks keeps a timer at the next end it knows of — the earliest
 * snooze in the database, read at each look, and any snooze set through this process. Whichever process's
 * timer fires first wakes the conversation; the others find nothing left to wake (lifecycle.ts).
 */
import type { Database } from '../db/database';
import { errorText, type Logger } from '../log';
import { SNOOZE_CHECK_MS, wakeSnoozed } from './lifecycle';

/** The timer fires this long after the end, so the end has passed on the database's side too. */
const AFTER_END_MS = 20;

export interface SnoozeAlarmDeps {
	db: Database;
	log: Logger;
	now(): number;
	/** How often to look even without a known end (default `SNOOZE_CHECK_MS`). */
	checkEveryMs?: number;
}

export class SnoozeAlarm {
	private poll: ReturnType<typeof setInterval> | undefined;
	private alarm: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;
	private stopped = false;

	constructor(private readonly deps: SnoozeAlarmDeps) {}

	start(): void {
		this.poll = setInterval(() => void this.wake(), this.deps.checkEveryMs ?? SNOOZE_CHECK_MS);
		// Stryker disable next-line OptionalChaining: equivalent: the alarm runs in Node, whose timers all have unref
		this.poll.unref?.();
		void this.wake();
	}

	/** A snooze was set through this process: its end gets a timer if it comes before the one set. */
	snoozedUntil(until: Date): void {
		this.arm(until.getTime());
	}

	stop(): void {
		this.stopped = true;
		clearInterval(this.poll);
		if (this.alarm) clearTimeout(this.alarm.timer);
		this.alarm = undefined;
	}

	/** A timer at `at`, unless one comes sooner or the next look comes first (a far end would overflow a timer). */
	private arm(at: number): void {
		// Stryker disable next-line EqualityOperator: equivalent: an end equal to the timer's would only get the same timer again
		if (this.stopped || (this.alarm && this.alarm.at <= at)) return;
		// Stryker disable next-line EqualityOperator: equivalent: an end exactly one interval away is met by the next look, which then sets the timer
		if (at - this.deps.now() > (this.deps.checkEveryMs ?? SNOOZE_CHECK_MS)) return;
		if (this.alarm) clearTimeout(this.alarm.timer);
		const timer = setTimeout(
			() => {
				this.alarm = undefined;
				void this.wake();
			},
			Math.max(0, at - this.deps.now()) + AFTER_END_MS
		);
		// Stryker disable next-line OptionalChaining: equivalent: the alarm runs in Node, whose timers all have unref
		timer.unref?.();
		this.alarm = { at, timer };
	}

	/** Wakes what has ended, then sets the timer at the next end. */
	private async wake(): Promise<void> {
		try {
			await wakeSnoozed(this.deps.db, new Date(this.deps.now()));
			const [next] = await this.deps.db.query<{ until: Date | null }>(
				"select min(snoozed_until) as until from conversations where team_state = 'snoozed'"
			);
			// Stryker disable next-line OptionalChaining: equivalent: select min(…) always answers one row
			if (next?.until) this.arm(new Date(next.until).getTime());
		} catch (error) {
			this.deps.log.warn('the snoozes could not be checked', { reason: errorText(error) });
		}
	}
}

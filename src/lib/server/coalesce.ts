/**
 * A task that many events may ask for at once (read new live events, run due rewraps, feed a stream):
 * it runs at most once at a time, and a request made while it runs makes it run once more afterwards.
 */

export interface Coalesced {
	/** Runs the task now, or once more after the run in progress. */
	trigger(): void;
	/** Resolves when no run is in progress. */
	idle(): Promise<void>;
}

export function coalesce(task: () => Promise<void>): Coalesced {
	let running: Promise<void> | undefined;
	let again = false;
	return {
		trigger() {
			if (running) {
				again = true;
				return;
			}
			running = (async () => {
				do {
					again = false;
					await task();
				} while (again);
				running = undefined;
			})();
		},
		idle: async () => {
			await running;
		}
	};
}

/**
 * Throttling of the `typing` signal (POST …/typing lasts 5 s, docs/contract-gaps.md §5):
 * at most one signal per interval while the agent keeps typing.
 */

export class Throttle {
	private last = Number.NEGATIVE_INFINITY;

	constructor(
		private readonly intervalMs: number,
		private readonly now: () => number = () => Date.now()
	) {}

	/** True (and remembered) when the interval has passed since the last accepted call. */
	take(): boolean {
		const time = this.now();
		if (time - this.last < this.intervalMs) return false;
		this.last = time;
		return true;
	}

	reset(): void {
		this.last = Number.NEGATIVE_INFINITY;
	}
}

/**
 * One action of a page at a time — a load, a save, a button's call — with what the page shows about it:
 * whether it runs (its button disabled, "Saving…"), which one when several buttons share it, and the
 * error of the last attempt for the page's error line. `run` ignores a second start while one runs, so a
 * double click never sends twice; `latest` (for loads) lets a new start supersede the running one, whose
 * result and error are then dropped, so a changed filter always shows its own answer.
 */
export class AsyncTask {
	#running = $state<string | null>(null);
	#failure = $state<unknown>(null);
	#generation = 0;

	get running(): boolean {
		return this.#running !== null;
	}

	/** The name the running action was started with, or null. */
	get current(): string | null {
		return this.#running;
	}

	/** The error of the last attempt, until the next one starts or `clear()`. */
	get failure(): unknown {
		return this.#failure;
	}

	/** Runs `action` unless one runs already; resolves with its result, or undefined when it failed or did not start. */
	async run<T>(action: () => Promise<T>, name = 'action'): Promise<T | undefined> {
		if (this.#running !== null) return undefined;
		return this.#start(action, name);
	}

	/** Runs `action`, superseding any running one; resolves with its result, or undefined when it failed or was superseded. */
	async latest<T>(action: () => Promise<T>, name = 'load'): Promise<T | undefined> {
		return this.#start(action, name);
	}

	async #start<T>(action: () => Promise<T>, name: string): Promise<T | undefined> {
		const generation = ++this.#generation;
		this.#running = name;
		this.#failure = null;
		try {
			const result = await action();
			return generation === this.#generation ? result : undefined;
		} catch (error) {
			if (generation === this.#generation) this.#failure = error;
			return undefined;
		} finally {
			if (generation === this.#generation) this.#running = null;
		}
	}

	/** Names the running action's step ("signing", then "confirming"); nothing when none runs. */
	step(name: string): void {
		if (this.#running !== null) this.#running = name;
	}

	/** Shows an error found before any call (a check of the form). */
	fail(error: unknown): void {
		this.#failure = error;
	}

	clear(): void {
		this.#failure = null;
	}
}

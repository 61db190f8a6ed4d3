/**
 * Progress of long attachment work, reported to a page callback across comlink at
 * most about a hundred times per file, never awaited except the last, and released when the work ends.
 */
import { releaseProxy } from 'comlink';
import type { ProgressCallback } from './types';

const MIN_STEP_BYTES = 256 * 1024;

export class ProgressReporter {
	private last = -1;
	private readonly step: number;
	/** The latest report in flight; reports travel in order on the callback's own channel. */
	private delivered: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly total: number,
		private readonly callback?: ProgressCallback
	) {
		this.step = Math.max(MIN_STEP_BYTES, Math.ceil(total / 100));
	}

	private emit(done: number): void {
		this.last = done;
		try {
			// A comlink proxy returns a promise; a failed report must never fail the work.
			this.delivered = Promise.resolve(this.callback?.({ done, total: this.total })).catch(() => undefined);
		} catch {
			// a throwing callback is ignored the same way
		}
	}

	update(done: number): void {
		if (this.callback && (done - this.last >= this.step || done === this.total) && done !== this.last) this.emit(done);
	}

	/**
	 * Reports completion (once) and waits until the page has received it, so every report arrives
	 * before the result does (they travel on different channels); then frees the callback's channel.
	 */
	async finish(): Promise<void> {
		if (this.callback && this.last !== this.total) this.emit(this.total);
		await this.delivered;
		this.release();
	}

	release(): void {
		const release = (this.callback as { [releaseProxy]?: () => void } | undefined)?.[releaseProxy];
		if (typeof release === 'function') release();
	}
}

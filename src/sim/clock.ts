/**
 * The simulator's clock: real time shifted by an offset and running at a settable scale, so tests
 * reach the 300 s signature window, the 24 h idempotency expiry and the webhook retry schedule of
 * contract 5.1, 6 and 8 in seconds. Timers fire on this clock and follow every change to it.
 */

export type SignatureClock = 'real' | 'simulated';

export interface ClockSettings {
	/** Simulated time minus real time, in seconds, at the moment of the call. */
	offsetSeconds?: number;
	/** Moves the simulated time forward (or back, if negative) by this many seconds. */
	advanceSeconds?: number;
	/** Simulated seconds per real second from now on; 0 freezes the clock. */
	scale?: number;
	/** Which time the signature window (5.1) and webhook timestamps (5.2) use. */
	signatureClock?: SignatureClock;
}

export interface ClockReading {
	now: string;
	nowMs: number;
	offsetSeconds: number;
	scale: number;
	signatureClock: SignatureClock;
}

export const MAX_SCALE = 1_000_000;

export class SimClock {
	private baseRealMs = Date.now();
	private baseSimMs = this.baseRealMs;
	private rate = 1;
	private signatureSource: SignatureClock = 'real';
	private readonly listeners = new Set<() => void>();

	/** Simulated time in milliseconds since the epoch. */
	nowMs(): number {
		return Math.floor(this.baseSimMs + (Date.now() - this.baseRealMs) * this.rate);
	}

	nowSeconds(): number {
		return Math.floor(this.nowMs() / 1000);
	}

	get scale(): number {
		return this.rate;
	}

	/** Seconds used to check request signatures and to sign webhooks. */
	signatureNowSeconds(): number {
		return this.signatureSource === 'real' ? Math.floor(Date.now() / 1000) : this.nowSeconds();
	}

	/** Applies the given settings in the order offset, advance, scale; the caller validates them. */
	set(settings: ClockSettings): void {
		const realNow = Date.now();
		let simNow = this.nowMs();
		if (settings.offsetSeconds !== undefined) simNow = realNow + settings.offsetSeconds * 1000;
		if (settings.advanceSeconds !== undefined) simNow += settings.advanceSeconds * 1000;
		this.baseRealMs = realNow;
		this.baseSimMs = simNow;
		if (settings.scale !== undefined) this.rate = settings.scale;
		if (settings.signatureClock !== undefined) this.signatureSource = settings.signatureClock;
		for (const listener of this.listeners) listener();
	}

	read(): ClockReading {
		const nowMs = this.nowMs();
		return {
			now: new Date(nowMs).toISOString(),
			nowMs,
			offsetSeconds: (nowMs - Date.now()) / 1000,
			scale: this.rate,
			signatureClock: this.signatureSource
		};
	}

	/** Real milliseconds until the simulated time reaches `simMs`, or Infinity while frozen. */
	realDelayUntil(simMs: number): number {
		const remaining = simMs - this.nowMs();
		if (remaining <= 0) return 0;
		return this.rate === 0 ? Infinity : remaining / this.rate;
	}

	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}

interface Timer {
	dueMs: number;
	run: () => void;
}

/** Timers due at simulated instants; one real `setTimeout` is armed for the earliest. */
export class SimTimers {
	private readonly timers = new Set<Timer>();
	private handle: ReturnType<typeof setTimeout> | undefined;
	private stopped = false;
	private readonly unsubscribe: () => void;

	constructor(private readonly clock: SimClock) {
		this.unsubscribe = clock.onChange(() => this.fireDueAndArm());
	}

	/** Runs `run` once the simulated clock reaches `dueMs`; returns a cancel function. */
	at(dueMs: number, run: () => void): () => void {
		const timer: Timer = { dueMs, run };
		this.timers.add(timer);
		this.fireDueAndArm();
		return () => {
			this.timers.delete(timer);
		};
	}

	get pending(): number {
		return this.timers.size;
	}

	stop(): void {
		this.stopped = true;
		this.timers.clear();
		this.unsubscribe();
		if (this.handle) clearTimeout(this.handle);
	}

	private fireDueAndArm(): void {
		if (this.stopped) return;
		if (this.handle) clearTimeout(this.handle);
		this.handle = undefined;
		const now = this.clock.nowMs();
		const due = [...this.timers].filter((timer) => timer.dueMs <= now).sort((a, b) => a.dueMs - b.dueMs);
		for (const timer of due) this.timers.delete(timer);
		for (const timer of due) timer.run();
		if (this.timers.size === 0) return;
		const earliest = Math.min(...[...this.timers].map((timer) => timer.dueMs));
		const delay = this.clock.realDelayUntil(earliest);
		if (delay === Infinity) return;
		// setTimeout takes at most 2^31-1 ms; the clock is checked again when it fires.
		this.handle = setTimeout(() => this.fireDueAndArm(), Math.min(Math.max(1, Math.ceil(delay)), 2 ** 31 - 1));
	}
}

/**
 * JS heap of a page and of its workers, read over the Chrome DevTools Protocol for the browser
 * benchmark: V8 heap plus ArrayBuffer backing stores, per target, and garbage collection.
 */
import type { Browser, CDPSession } from '@playwright/test';

interface HeapUsage {
	usedSize: number;
	backingStorageSize?: number;
}

/**
 * One debugger session per target (page or worker), driven through the browser session with
 * `Target.sendMessageToTarget`, since Playwright opens CDP sessions for pages only.
 */
export class HeapProbe {
	private nextId = 1;
	private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

	private constructor(
		private readonly browserSession: CDPSession,
		private readonly sessionIds: string[]
	) {
		browserSession.on('Target.receivedMessageFromTarget', (event) => {
			const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message: string } };
			const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
			if (!waiting) return;
			this.pending.delete(message.id!);
			if (message.error) waiting.reject(new Error(message.error.message));
			else waiting.resolve(message.result);
		});
	}

	/** Attaches to the page whose URL contains `urlPart` and to every worker. */
	static async attach(browser: Browser, urlPart: string): Promise<HeapProbe> {
		const session = await browser.newBrowserCDPSession();
		const { targetInfos } = await session.send('Target.getTargets');
		const targets = targetInfos.filter((target) => (target.type === 'page' && target.url.includes(urlPart)) || target.type === 'worker');
		if (!targets.some((target) => target.type === 'worker')) throw new Error('no worker target to measure');
		const sessionIds: string[] = [];
		for (const target of targets) {
			const { sessionId } = await session.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
			sessionIds.push(sessionId);
		}
		return new HeapProbe(session, sessionIds);
	}

	private send(sessionId: string, method: string, params: object = {}): Promise<unknown> {
		const id = this.nextId++;
		const answer = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
		void this.browserSession.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
		return answer;
	}

	/** Collects garbage in every target. */
	async collectGarbage(): Promise<void> {
		await Promise.all(this.sessionIds.map((sessionId) => this.send(sessionId, 'HeapProfiler.collectGarbage')));
	}

	/** Bytes of JS heap plus ArrayBuffer backing stores, summed over the page and its workers. */
	async bytes(): Promise<number> {
		const usages = (await Promise.all(this.sessionIds.map((sessionId) => this.send(sessionId, 'Runtime.getHeapUsage')))) as HeapUsage[];
		return usages.reduce((sum, usage) => sum + usage.usedSize + (usage.backingStorageSize ?? 0), 0);
	}

	/** Samples `bytes()` until `work` settles; returns its result and the peak growth over the level before it. */
	async peakGrowthDuring<T>(work: () => Promise<T>): Promise<{ result: T; peakGrowth: number }> {
		await this.collectGarbage();
		const baseline = await this.bytes();
		let peak = baseline;
		let running = true;
		const sampling = (async () => {
			while (running) peak = Math.max(peak, await this.bytes());
		})();
		try {
			const result = await work();
			return { result, peakGrowth: peak - baseline };
		} finally {
			running = false;
			await sampling;
		}
	}

	async detach(): Promise<void> {
		await this.browserSession.detach();
	}
}

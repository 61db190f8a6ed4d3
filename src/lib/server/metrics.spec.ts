import { describe, expect, it } from 'vitest';
import { observe, scrape } from './metrics';

/** A process's state as the scrape reads it, with the embedded database's memory as given. */
function observedWith(embeddedDatabaseMemory: () => Promise<{ wasmBytes: number; workerHeapBytes: number } | null>) {
	observe({
		queue: async () => ({ depth: 0, oldestAgeSeconds: 0 }),
		grantJobs: async () => ({ running: 0, done: 0, total: 0 }),
		liveStreams: () => 0,
		embeddedDatabaseMemory,
		unreadyReasons: async () => []
	});
}

describe('the embedded database memory metric', () => {
	it('has no sample on a process without an embedded database, rather than a zero', async () => {
		observedWith(async () => null);
		const text = await scrape();
		expect(text).toContain('# TYPE inbox_embedded_database_bytes gauge');
		expect(text).not.toMatch(/^inbox_embedded_database_bytes\{/m);
	});

	it("gives PGlite's WASM memory and its thread's heap as read at the scrape", async () => {
		observedWith(async () => ({ wasmBytes: 197_787_648, workerHeapBytes: 25_000_000 }));
		const text = await scrape();
		expect(text).toMatch(/^inbox_embedded_database_bytes\{part="wasm"\} 197787648$/m);
		expect(text).toMatch(/^inbox_embedded_database_bytes\{part="worker_heap"\} 25000000$/m);
	});

	it('still answers when the database cannot say', async () => {
		observedWith(() => Promise.reject(new Error('the database worker stopped')));
		await expect(scrape()).resolves.toContain('inbox_live_streams 0');
	});
});

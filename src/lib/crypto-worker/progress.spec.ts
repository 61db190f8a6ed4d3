import { releaseProxy } from 'comlink';
import { describe, expect, it, vi } from 'vitest';
import { ProgressReporter } from './progress';
import type { Progress } from './types';

describe('progress reports', () => {
	it('reports about every 1% (at least every 256 KiB) and completion once', async () => {
		const seen: Progress[] = [];
		const total = 100 * 1024 * 1024;
		const reporter = new ProgressReporter(total, (progress) => seen.push(progress));
		for (let done = 0; done <= total; done += 64 * 1024) reporter.update(done);
		await reporter.finish();
		expect(seen.length).toBeGreaterThanOrEqual(100);
		expect(seen.length).toBeLessThanOrEqual(102);
		expect(seen.at(-1)).toEqual({ done: total, total });
		expect(seen.filter((p) => p.done === total)).toHaveLength(1);
	});

	it('a small file reports at least its completion; an empty one too', async () => {
		const seen: Progress[] = [];
		const reporter = new ProgressReporter(0, (progress) => seen.push(progress));
		await reporter.finish();
		expect(seen).toEqual([{ done: 0, total: 0 }]);
	});

	it('finish waits for the last report to be delivered', async () => {
		let delivered = false;
		const reporter = new ProgressReporter(
			10,
			() => new Promise<void>((resolve) => setTimeout(() => resolve(void (delivered = true)), 20)) as unknown as void
		);
		await reporter.finish();
		expect(delivered).toBe(true);
	});

	it('a failing callback never fails the work', async () => {
		const reporter = new ProgressReporter(10, () => {
			throw new Error('the page went away');
		});
		reporter.update(10);
		await expect(reporter.finish()).resolves.toBeUndefined();
	});

	it('reports completion as soon as the last byte is done, once, also for a one-byte file', async () => {
		const seen: number[] = [];
		const total = 100 * 1024 * 1024; // a step of 1 MiB
		const reporter = new ProgressReporter(total, ({ done }) => void seen.push(done));
		reporter.update(512 * 1024); // less than a step
		reporter.update(total - 1000);
		reporter.update(total); // less than a step later, but the end
		reporter.update(total);
		expect(seen).toEqual([total - 1000, total]);
		await reporter.finish();
		expect(seen).toEqual([total - 1000, total]);

		const tiny: Progress[] = [];
		const one = new ProgressReporter(1, (progress) => tiny.push(progress));
		one.update(1);
		await one.finish();
		expect(tiny).toEqual([{ done: 1, total: 1 }]);
	});

	it('frees the callback channel when the work ends', async () => {
		const release = vi.fn();
		const callback = Object.assign(() => undefined, { [releaseProxy]: release });
		await new ProgressReporter(10, callback).finish();
		expect(release).toHaveBeenCalledTimes(1);
	});
});

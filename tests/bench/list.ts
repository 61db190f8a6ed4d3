/**
 * `npm run bench:list` (docs/operations.md "The list at 10,000 conversations"): the inbox's list in
 * Chromium over 10,000 seeded conversations with a few stored messages each, plus live ones. Measured
 * from the page: unlock → first rows, unlock → every count right, row click → first decrypted message,
 * and frame times and long tasks over a 10 s wheel scroll with no events (the reference), while the
 * simulator's customers write 50 messages/s, and once more under a Chrome trace to show where the time goes.
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { ensureBuild } from '../../src/cli/stack/build';
import { lockKey, readyAgent, unlock, type InboxStack, type SimCustomer } from '../support/inbox-e2e';
import { CHROMIUM_PATH } from '../support/prerequisites';
import { seededStatusCounts, startSeededInbox } from '../support/seeded-inbox';

const SEEDED = 10_000;
const MESSAGES_EACH = 4;
const LIVE_CUSTOMERS = 10;
const MESSAGES_PER_SECOND = 50;
/** Messages the writer leaves unanswered at most before it waits: past this the simulator is the bottleneck. */
const MAX_IN_FLIGHT = 100;
const SCROLL_MS = 10_000;
const WHEEL_PIXELS = 120;
const FRAME_MS = 16;
const GOALS = { firstRows: 500, counts: 1000, frameP95: 16.7, longestTask: 50 };

/** What the page records for the bench (performance.now() times, rAF frame deltas, long tasks). */
interface PageRecord {
	clickAt?: number;
	rowsAt?: number;
	rowsAtClick?: boolean;
	countsAt?: number;
	messageAt?: number;
	frames: number[];
	longTasks: number[];
	scrollStart: number;
	/** The smallest step of the page's `performance.now()` (Chrome coarsens it without cross-origin isolation). */
	clockStep?: number;
	stop?: () => void;
}

declare global {
	interface Window {
		listBench?: PageRecord;
	}
}

const record = (page: Page) => page.evaluate(() => ({ ...(window.listBench as PageRecord), stop: undefined }));

/** The count each list control should show, by its selector: the status pills, and the All view (every open conversation that is not closed). */
function expectedCounts(live: number): Record<string, number> {
	const seeded = seededStatusCounts(SEEDED);
	return {
		'[data-filter=all] .n': seeded.all + live,
		'[data-filter=active] .n': seeded.active + live,
		'[data-filter=awaiting_key] .n': seeded.awaiting_key,
		'[data-filter=pending] .n': seeded.pending,
		'[data-filter=closed] .n': seeded.closed,
		'[data-view=all] [data-testid=view-count]': seeded.all - seeded.closed + live
	};
}

/** In the page: from the Unlock click, the frames at which a first row, and every count as `expected`, are in the DOM. */
function watchUnlock(page: Page, expected: Record<string, number>): Promise<void> {
	return page.evaluate((counts) => {
		const times: PageRecord = { frames: [], longTasks: [], scrollStart: 0 };
		window.listBench = times;
		const hasRows = () => document.querySelector('[data-testid=conversation-list] li') !== null;
		document.addEventListener(
			'click',
			(event) => {
				if ((event.target as Element).closest('button')?.textContent?.trim() !== 'Unlock') return;
				times.clickAt = performance.now();
				times.rowsAtClick = hasRows();
			},
			{ capture: true }
		);
		const countsRight = () =>
			Object.entries(counts).every(
				([selector, n]) => Number(document.querySelector(selector)?.textContent?.replace(/\D/g, '') ?? '-') === n
			);
		const check = () => {
			if (times.clickAt !== undefined && times.rowsAt === undefined && hasRows()) times.rowsAt = performance.now();
			if (times.rowsAt !== undefined && countsRight()) times.countsAt = performance.now();
			else requestAnimationFrame(check);
		};
		requestAnimationFrame(check);
	}, expected);
}

/** Unlock → first rows and → counts right, after a reload of the locked inbox (the list loads from scratch). */
async function timeUnlock(browser: Browser, page: Page, expected: Record<string, number>) {
	// the page is busy after sign-in (the rest of the list, names, the search index): a Lock that waits
	// behind long tasks says which
	await browser.startTracing(page, { categories: ['devtools.timeline'] });
	const locked = await lockKey(page).catch((error: unknown) => error);
	const { longTasks } = mainThreadProfile(
		(JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents
	);
	console.log(`while locking after sign-in: ${longTasks.length ? '' : 'no task over 50 ms'}`);
	for (const task of longTasks) console.log(`  ${describeTask(task)}`);
	if (locked !== undefined) throw locked;
	await page.reload();
	await watchUnlock(page, expected);
	await unlock(page);
	await page
		.waitForFunction(() => window.listBench?.countsAt !== undefined, null, { timeout: 120_000 })
		.catch(async (error) => {
			const shown = await page.evaluate(
				(selectors) => selectors.map((selector) => document.querySelector(selector)?.textContent),
				Object.keys(expected)
			);
			throw new Error(`the counts read ${JSON.stringify(shown)}, not ${JSON.stringify(Object.values(expected))}`, { cause: error });
		});
	const times = await record(page);
	if (times.rowsAtClick) throw new Error('the list showed rows before the unlock: nothing to measure');
	return {
		firstRows: (times.rowsAt as number) - (times.clickAt as number),
		counts: (times.countsAt as number) - (times.clickAt as number)
	};
}

/** Row click → the frame at which the message with `text` shows, decrypted, in the thread. */
async function timeRowToMessage(page: Page, conversationId: string, text: string): Promise<number> {
	await page.evaluate((wanted) => {
		const times: PageRecord = { frames: [], longTasks: [], scrollStart: 0 };
		window.listBench = times;
		document.addEventListener('click', () => (times.clickAt ??= performance.now()), { capture: true, once: true });
		const check = () => {
			const shown = [...document.querySelectorAll('[data-testid=thread] [data-testid=message]')].some((m) =>
				m.textContent?.includes(wanted)
			);
			if (times.clickAt !== undefined && shown) times.messageAt = performance.now();
			else requestAnimationFrame(check);
		};
		requestAnimationFrame(check);
	}, text);
	await page.locator(`[data-conversation-id="${conversationId}"]`).first().click();
	await page.waitForFunction(() => window.listBench?.messageAt !== undefined, null, { timeout: 60_000 });
	const times = await record(page);
	return (times.messageAt as number) - (times.clickAt as number);
}

/** In the page: every frame's time (rAF deltas) and every long task, until `stop`. */
function recordFrames(page: Page): Promise<void> {
	return page.getByTestId('conversation-scroller').evaluate((scroller: HTMLElement) => {
		let clockStep = Infinity;
		for (let last = performance.now(), changes = 0; changes < 50;) {
			const now = performance.now();
			if (now !== last) {
				clockStep = Math.min(clockStep, now - last);
				last = now;
				changes++;
			}
		}
		const times: PageRecord = { frames: [], longTasks: [], scrollStart: scroller.scrollTop, clockStep };
		window.listBench = times;
		const observer = new PerformanceObserver((list) => times.longTasks.push(...list.getEntries().map((entry) => entry.duration)));
		observer.observe({ type: 'longtask' });
		let previous: number | undefined;
		let running = true;
		const frame = (now: number) => {
			if (previous !== undefined) times.frames.push(now - previous);
			previous = now;
			if (running) requestAnimationFrame(frame);
		};
		requestAnimationFrame(frame);
		times.stop = () => {
			running = false;
			// the entries of tasks that ended but were not handed to the observer yet
			times.longTasks.push(...observer.takeRecords().map((entry) => entry.duration));
			observer.disconnect();
			times.scrollStart = scroller.scrollTop - times.scrollStart;
		};
	});
}

/** A 10 s wheel scroll of the list from the top, a wheel step a frame: frame times, long tasks and the pixels scrolled. */
async function scrollTen(page: Page) {
	const scroller = page.getByTestId('conversation-scroller');
	await scroller.evaluate((element: HTMLElement) => (element.scrollTop = 0));
	const box = await scroller.boundingBox();
	if (!box) throw new Error('the list is not on the screen');
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	await recordFrames(page);
	const until = performance.now() + SCROLL_MS;
	while (performance.now() < until) {
		await page.mouse.wheel(0, WHEEL_PIXELS);
		await new Promise((resolve) => setTimeout(resolve, FRAME_MS));
	}
	// long-task entries reach the observer after their task; give the last ones a moment
	await page.waitForTimeout(200);
	await page.evaluate(() => window.listBench?.stop?.());
	const times = await record(page);
	return { frames: times.frames, longTasks: times.longTasks, scrolled: times.scrollStart, clockStep: times.clockStep ?? Number.NaN };
}

/** Customers' messages at `perSecond` in turn, until `stop`, which says how many the simulator took and in how long. */
function writeAtRate(customers: SimCustomer[], perSecond: number) {
	const tally = { sent: 0, failed: 0, inFlight: 0 };
	const started = performance.now();
	let issued = 0;
	const timer = setInterval(() => {
		const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
		for (; issued < due && tally.inFlight < MAX_IN_FLIGHT; issued++) {
			tally.inFlight++;
			customers[issued % customers.length]
				.say(`Live message ${issued}: is my order on its way yet?`)
				.then(
					() => tally.sent++,
					() => tally.failed++
				)
				.finally(() => tally.inFlight--);
		}
	}, 5);
	return async () => {
		clearInterval(timer);
		const seconds = (performance.now() - started) / 1000;
		while (tally.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
		return { sent: tally.sent, failed: tally.failed, seconds };
	};
}

/** The 10 s scroll while customers write; a second of writing first so the live updates are flowing. */
async function scrollWhileWriting(page: Page, customers: SimCustomer[], during?: () => Promise<unknown>) {
	const stopWriting = writeAtRate(customers, MESSAGES_PER_SECOND);
	await new Promise((resolve) => setTimeout(resolve, 1000));
	await during?.();
	const scroll = await scrollTen(page);
	return { scroll, writing: await stopWriting() };
}

interface TraceEvent {
	name: string;
	ph: string;
	ts: number;
	dur?: number;
	/** The time the thread ran (µs), without the time it waited for a core. */
	tdur?: number;
	pid: number;
	tid: number;
	args?: {
		name?: string;
		data?: { type?: string; functionName?: string; url?: string; lineNumber?: number };
		beginData?: { dirtyObjects?: number; totalObjects?: number; stackTrace?: { functionName?: string }[] };
		/** Where a layout started: each root's quad, x and y of its four corners. */
		endData?: { layoutRoots?: { quads?: number[][] }[] };
	};
}

/** What one piece of work of a trace is called: a script call by its function and place, an event by its type. */
function workName(event: TraceEvent): string {
	const data = event.args?.data;
	if (event.name === 'EventDispatch') return `EventDispatch (${data?.type})`;
	if (event.name === 'Layout' && event.args?.beginData) {
		const { dirtyObjects, totalObjects, stackTrace } = event.args.beginData;
		const roots = (event.args.endData?.layoutRoots ?? []).map(({ quads }) => {
			const [x1, y1, , , x3, y3] = quads?.[0] ?? [];
			return `${x1},${y1}–${x3},${y3}`;
		});
		return `Layout of ${dirtyObjects}/${totalObjects} objects at ${roots.join(' ') || '?'}${stackTrace ? ` forced by ${stackTrace[0]?.functionName || '(anonymous)'}` : ''}`;
	}
	if (event.name === 'FunctionCall' && data?.functionName !== undefined)
		return `FunctionCall ${data.functionName || '(anonymous)'} ${(data.url ?? '').split('/').pop()}:${data.lineNumber ?? '?'}`;
	return event.name;
}

/** Self time (µs) by name of a run of nested trace events of one thread, sorted by start. */
function selfTimes(events: readonly TraceEvent[], name: (event: TraceEvent) => string): Map<string, number> {
	const selfUs = new Map<string, number>();
	const open: { event: TraceEvent; name: string }[] = [];
	const add = (key: string, us: number) => selfUs.set(key, (selfUs.get(key) ?? 0) + us);
	for (const event of events) {
		while (open.length && open[open.length - 1].event.ts + (open[open.length - 1].event.dur as number) <= event.ts) open.pop();
		const parent = open[open.length - 1];
		if (parent) add(parent.name, -(event.dur as number));
		const key = name(event);
		add(key, event.dur as number);
		open.push({ event, name: key });
	}
	return selfUs;
}

const topMs = (selfUs: Map<string, number>, count: number): [string, number][] =>
	[...selfUs.entries()]
		.map(([name, us]): [string, number] => [name, us / 1000])
		.sort((a, b) => b[1] - a[1])
		.slice(0, count);

/** A task of the page's main thread over 50 ms in a trace: how long, and where its own time went. */
interface TracedLongTask {
	ms: number;
	/** Of those, the time the main thread ran: the rest it waited for one of the machine's cores. */
	threadMs: number | undefined;
	work: [string, number][];
}

/**
 * The busiest renderer main thread of a trace: self time (ms) by kind of work, most first, and each task
 * over 50 ms with the work inside it, so the bench says what the longest task was.
 */
function mainThreadProfile(events: TraceEvent[]): { selfTime: [string, number][]; longTasks: TracedLongTask[] } {
	const mainThreads = new Set(
		events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`)
	);
	const byThread = new Map<string, TraceEvent[]>();
	for (const event of events) {
		const thread = `${event.pid}:${event.tid}`;
		if (event.ph === 'X' && event.dur !== undefined && mainThreads.has(thread))
			byThread.set(thread, [...(byThread.get(thread) ?? []), event]);
	}
	const busiest = [...byThread.values()].sort((a, b) => b.length - a.length)[0] ?? [];
	busiest.sort((a, b) => a.ts - b.ts || (b.dur as number) - (a.dur as number));
	const longTasks: TracedLongTask[] = [];
	let end = -Infinity;
	for (const [index, event] of busiest.entries()) {
		if (event.ts < end) continue;
		end = event.ts + (event.dur as number);
		if ((event.dur as number) <= LONG_TASK_US) continue;
		const after = busiest.findIndex((later, at) => at > index && later.ts >= end);
		const inside = busiest.slice(index, after === -1 ? undefined : after);
		longTasks.push({
			ms: (event.dur as number) / 1000,
			threadMs: event.tdur === undefined ? undefined : event.tdur / 1000,
			work: topMs(selfTimes(inside, workName), 5)
		});
	}
	return {
		selfTime: topMs(
			selfTimes(busiest, (event) => (event.name === 'EventDispatch' ? workName(event) : event.name)),
			12
		),
		longTasks: longTasks.sort((a, b) => b.ms - a.ms).slice(0, 3)
	};
}

function describeTask(task: TracedLongTask): string {
	const running = task.threadMs === undefined ? '?' : ms(task.threadMs);
	return `${ms(task.ms)} ms (${running} ms running): ${task.work.map(([name, selfMs]) => `${name} ${selfMs.toFixed(1)}`).join(', ')}`;
}

/** A task is long over 50 ms (the Long Tasks API's threshold). */
const LONG_TASK_US = 50_000;

/** A Chrome trace of the scroll with events (a run of its own), summed by kind of work on the page's main thread. */
async function traceScrollWhileWriting(browser: Browser, page: Page, customers: SimCustomer[]) {
	await scrollWhileWriting(page, customers, () => browser.startTracing(page, { categories: ['devtools.timeline', INVALIDATIONS] }));
	const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
	return { ...mainThreadProfile(trace.traceEvents), invalidations: layoutInvalidations(trace.traceEvents) };
}

/** The trace category where Chrome says which node made a layout necessary, and why. */
const INVALIDATIONS = 'disabled-by-default-devtools.timeline.invalidationTracking';

/** What made layouts necessary during a trace: the nodes (by name) and reasons, most often first. */
function layoutInvalidations(events: readonly TraceEvent[]): [string, number][] {
	const counts = new Map<string, number>();
	for (const event of events) {
		if (event.name !== 'LayoutInvalidationTracking') continue;
		const data = event.args?.data as { nodeName?: string; reason?: string } | undefined;
		const key = `${data?.nodeName ?? '?'} (${data?.reason ?? '?'})`;
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
}

const percentile = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const ms = (value: number) => value.toFixed(1);
const goal = (met: boolean) => (met ? 'met' : 'MISSED');

type Scroll = Awaited<ReturnType<typeof scrollTen>>;

/** A frame this long means the display showed the previous one again: one and a half intervals at 60 Hz. */
const DROPPED_FRAME_MS = 25;

function printScroll(label: string, { frames, longTasks, scrolled }: Scroll): void {
	const longest = Math.max(0, ...longTasks);
	const dropped = frames.filter((frame) => frame > DROPPED_FRAME_MS).length;
	console.log(
		`${label.padEnd(34)} ${frames.length} frames, p50 ${ms(percentile(frames, 50))} / p95 ${ms(percentile(frames, 95))} / p99 ${ms(percentile(frames, 99))} ms, ` +
			`longest frame ${ms(Math.max(0, ...frames))} ms, ${dropped} over ${DROPPED_FRAME_MS} ms, ` +
			`longest task ${ms(longest)} ms (${longTasks.length} long tasks, ${longTasks.reduce((a, b) => a + b, 0).toFixed(0)} ms in all), scrolled ${scrolled} px`
	);
}

/** Ten live conversations, started by customers of the simulator, each with a first message. */
async function liveCustomers(inbox: InboxStack, agent: Parameters<InboxStack['invite']>[0]) {
	const customers: SimCustomer[] = [];
	for (let i = 0; i < LIVE_CUSTOMERS; i++) {
		const customer = await inbox.customer(await inbox.invite(agent));
		await customer.say(`Hello, this is live customer ${i}.`);
		customers.push(customer);
	}
	return customers;
}

async function measure(browser: Browser, page: Page, inbox: InboxStack) {
	const agent = await readyAgent(page, inbox, 'bench');
	const customers = await liveCustomers(inbox, agent);
	const unlocked = await timeUnlock(browser, page, expectedCounts(LIVE_CUSTOMERS));
	const rowToMessage = await timeRowToMessage(page, customers[0].conversationId, 'Hello, this is live customer 0.');
	const reference = await scrollTen(page);
	const loaded = await scrollWhileWriting(page, customers);
	const profile = await traceScrollWhileWriting(browser, page, customers);
	return { unlocked, rowToMessage, reference, loaded, profile };
}

function report({ unlocked, rowToMessage, reference, loaded, profile }: Awaited<ReturnType<typeof measure>>, loadAtStart: number[]) {
	const line = (label: string, value: string) => console.log(`${label.padEnd(34)} ${value}`);
	line(
		'unlock → first rows visible',
		`${ms(unlocked.firstRows)} ms   goal < ${GOALS.firstRows} ms: ${goal(unlocked.firstRows < GOALS.firstRows)}`
	);
	line('unlock → every count right', `${ms(unlocked.counts)} ms   goal < ${GOALS.counts} ms: ${goal(unlocked.counts < GOALS.counts)}`);
	line('row click → decrypted message', `${ms(rowToMessage)} ms`);
	printScroll('scroll 10 s, no events (reference)', reference);
	printScroll(`scroll 10 s, ${MESSAGES_PER_SECOND} messages/s`, loaded.scroll);
	const { sent, failed, seconds } = loaded.writing;
	line('  customers wrote', `${sent} messages in ${seconds.toFixed(1)} s = ${(sent / seconds).toFixed(1)}/s (${failed} failed)`);
	const p95 = percentile(loaded.scroll.frames, 95);
	const longest = Math.max(0, ...loaded.scroll.longTasks);
	line(
		'  goals while events arrive',
		`frame p95 ≤ ${GOALS.frameP95} ms: ${goal(p95 <= GOALS.frameP95)}, no task > ${GOALS.longestTask} ms: ${goal(longest <= GOALS.longestTask)} ` +
			`(the page's clock moves in steps of ${loaded.scroll.clockStep.toFixed(3)} ms)`
	);
	console.log('\nwhere the main thread of the page spends the scroll with events (Chrome trace, self time, a run of its own):');
	for (const [name, selfMs] of profile.selfTime) console.log(`  ${selfMs.toFixed(0).padStart(6)} ms  ${name}`);
	console.log('what made the page lay out again in that trace (node, reason: times):');
	for (const [what, times] of profile.invalidations) console.log(`  ${String(times).padStart(6)}  ${what}`);
	console.log(`tasks over ${LONG_TASK_US / 1000} ms in that trace: ${profile.longTasks.length ? '' : 'none'}`);
	for (const task of profile.longTasks) console.log(`  ${describeTask(task)}`);
	const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
	console.log(
		`\nload average: ${load(loadAtStart)} at the start, ${load(loadavg())} at the end, on ${availableParallelism()} cores (a shared machine: noisy figures)`
	);
	console.log(
		`list at 10k: first rows ${ms(unlocked.firstRows)} ms, counts ${ms(unlocked.counts)} ms, frame p95 ${ms(p95)} ms, longest task ${ms(longest)} ms`
	);
}

async function main(): Promise<void> {
	const loadAtStart = loadavg();
	await ensureBuild();
	const seeding = performance.now();
	const inbox = await startSeededInbox(SEEDED, MESSAGES_EACH);
	console.log(
		`\nList benchmark: ${SEEDED.toLocaleString('en-US')} seeded conversations (60% active, 10% awaiting a key, 10% pending, 20% closed), ` +
			`${MESSAGES_EACH} stored messages in each started one, ${LIVE_CUSTOMERS} live ones from the simulator's customers; ` +
			`seeded and started in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`
	);
	const browser = await chromium.launch({
		executablePath: CHROMIUM_PATH,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']
	});
	try {
		const context = await browser.newContext({ baseURL: inbox.url });
		// tsx names the page's functions with esbuild's `__name` helper, which the page lacks
		await context.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
		const page = await context.newPage();
		report(await measure(browser, page, inbox), loadAtStart);
	} finally {
		await browser.close();
		await inbox.stack.stop();
		rmSync(inbox.stack.dataDir, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

/**
 * A web page the signed-in agent visits runs nothing in the inbox's origin (docs/threat-model.md, "A web
 * page the agent visits"; docs/inbox-api.md §1): from another origin (tests/support/hostile-page.ts) it
 * frames every page, route and file the inbox serves, opens the PDF frame as a window, and posts each the
 * module the probe used. Every frame is refused (`frame-ancestors`) or has an opaque origin (or, for a file
 * that is no document, is saved as a download), and the module runs nowhere but in the page's own control frame.
 */
import type { Frame } from '@playwright/test';
import { MARK, pathsTheInboxServes, startHostilePage } from './support/hostile-page';
import { expect, readyAgent, test } from './support/inbox-e2e';

interface HostileWindow {
	ran: { origin: string; href: string }[];
	opened?: (Window | null)[];
	postToAll(): void;
}

/** `refused` when the browser showed its error page instead, `opaque` for a sandboxed document, else the origin it runs in. */
async function stateOf(frame: Frame | null): Promise<string> {
	if (!frame || frame.url().startsWith('chrome-error:')) return 'refused';
	const origin = await frame.evaluate(() => self.origin);
	return origin === 'null' ? 'opaque' : `runs in ${origin}`;
}

test('a page of another origin frames or opens everything the inbox serves and posts it a module: none runs in the inbox’s origin', async ({
	page,
	context,
	inbox
}) => {
	// signed in, with a key in this browser: what the probe's module went on to use
	await readyAgent(page, inbox, 'visitor');
	// and the scripts the PDF frame's document names, served by a route with a parameter
	const frameDocument = await (await page.request.get('/pdf-frame.html')).text();
	const paths = [...pathsTheInboxServes(), ...[...frameDocument.matchAll(/"(\/pdf-frame\/[^"]+)"/g)].map((match) => match[1])];
	expect(paths).toEqual(expect.arrayContaining(['/', '/login', '/inbox', '/viewer', '/key', '/admin', '/favicon.svg', '/pdf-frame.html']));
	expect(paths.filter((path) => path.startsWith('/_app/immutable/workers/')).length).toBeGreaterThan(0);
	expect(paths.filter((path) => path.startsWith('/_app/immutable/entry/')).length).toBeGreaterThan(0);
	expect(paths.filter((path) => path.endsWith('.wasm'))).toHaveLength(1);

	const hostile = await startHostilePage();
	try {
		const visited = await context.newPage();
		await visited.goto(hostile.url);
		const frame = async (url: string) => {
			const element = await visited.evaluateHandle(async (src) => {
				const iframe = document.createElement('iframe');
				iframe.src = src;
				const loaded = new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true }));
				document.body.append(iframe);
				await loaded;
				return iframe;
			}, url);
			return element.asElement()!.contentFrame();
		};
		/** A file that is no document (libsodium's `.wasm`): the browser saves it instead of showing it, and its frame never loads. */
		const saved = async (url: string) => {
			const [download] = await Promise.all([
				visited.waitForEvent('download'),
				visited.evaluate((src) => {
					const iframe = document.createElement('iframe');
					iframe.src = src;
					document.body.append(iframe);
				}, url)
			]);
			await download.cancel();
			return download.url() === url ? 'saved' : `saved ${download.url()}`;
		};
		const states: [string, string][] = [];
		for (const path of paths) {
			states.push([path, path.endsWith('.wasm') ? await saved(inbox.url + path) : await stateOf(await frame(inbox.url + path))]);
		}
		const [popup] = await Promise.all([
			visited.waitForEvent('popup'),
			visited.evaluate((url) => {
				(window as unknown as HostileWindow).opened = [window.open(url)];
			}, `${inbox.url}/pdf-frame.html`)
		]);
		await popup.waitForLoadState();
		states.push(['window.open /pdf-frame.html', await stateOf(popup.mainFrame())]);

		// the control frame comes last: once its module has reported, the messages posted before it were delivered
		await frame(`${hostile.url}/control`);
		await visited.evaluate(() => (window as unknown as HostileWindow).postToAll());
		const ran = () => visited.evaluate(() => (window as unknown as HostileWindow).ran);
		await expect.poll(async () => (await ran()).map((report) => report.origin)).toContain(hostile.url);

		expect({
			framedOrOpenedWithAnOrigin: states.filter(([, state]) => !['refused', 'opaque', 'saved'].includes(state)),
			ranOutsideTheControl: (await ran()).filter((report) => report.origin !== hostile.url),
			markInTheInboxOrigin: await page.evaluate((mark) => localStorage.getItem(mark), MARK)
		}).toEqual({ framedOrOpenedWithAnOrigin: [], ranOutsideTheControl: [], markInTheInboxOrigin: null });
	} finally {
		await hostile.close();
	}
});

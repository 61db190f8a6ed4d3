/**
 * Debian's Firefox ESR driven by puppeteer-core over WebDriver BiDi, for the Firefox smoke test
 * (README.md "Two commands"): Playwright's own Firefox is a patched build it would download, so the stock one
 * installed by the prerequisites is launched here, headless, in a throwaway profile puppeteer-core makes.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { FIREFOX_PATH } from './prerequisites';

export type { Browser, Page };

/** How long a step in Firefox may take, as long as Playwright's `expect` waits in the Chromium tests. */
const STEP_TIMEOUT = 15_000;

/** Playwright's window for the Chromium tests, so both engines lay the screens out alike (puppeteer's own is 800×600). */
const VIEWPORT = { width: 1280, height: 720 };

export async function launchFirefox(): Promise<Browser> {
	return puppeteer.launch({
		browser: 'firefox',
		protocol: 'webDriverBiDi',
		executablePath: FIREFOX_PATH,
		headless: true,
		defaultViewport: VIEWPORT
	});
}

/** What each page logged (console and uncaught errors), for the message of a step that failed. */
const logged = new WeakMap<Page, string[]>();

export async function newFirefoxPage(browser: Browser): Promise<Page> {
	const page = await browser.newPage();
	page.setDefaultTimeout(STEP_TIMEOUT);
	const lines: string[] = [];
	page.on('console', (message) => lines.push(`${message.type()}: ${message.text()}`));
	page.on('pageerror', (error) => lines.push(`uncaught: ${error instanceof Error ? error.message : String(error)}`));
	logged.set(page, lines);
	return page;
}

/**
 * Waits until a `selector` element is visible; when none comes, fails with what the elements matching
 * `around` show (their text) and the page's last log lines, so a failure says where the page stopped.
 */
export async function visibleOrExplained(page: Page, selector: string, around: string): Promise<void> {
	try {
		await page.waitForSelector(selector, { visible: true });
	} catch (error) {
		const shown = await page
			.$$eval(around, (elements) => elements.map((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 500)))
			.catch((reason: unknown) => [`(could not read: ${String(reason)})`]);
		const lines = (logged.get(page) ?? []).slice(-20);
		throw new Error(
			`${selector} did not show within ${STEP_TIMEOUT} ms.\n${around} showed:\n${shown.join('\n') || '(nothing)'}\nthe page logged:\n${lines.join('\n') || '(nothing)'}`,
			{ cause: error }
		);
	}
}

/** Waits until a `selector` element's text contains `text`. */
export async function textShown(page: Page, selector: string, text: string): Promise<void> {
	await page.waitForFunction(
		(within: string, wanted: string) => [...document.querySelectorAll(within)].some((element) => element.textContent?.includes(wanted)),
		{},
		selector,
		text
	);
}

/** Clicks `selector`, which opens a tab, and gives that tab once its URL matches `url`. */
export async function openedTab(browser: Browser, page: Page, selector: string, url: RegExp): Promise<Page> {
	const [target] = await Promise.all([
		browser.waitForTarget((candidate) => url.test(candidate.url()), { timeout: STEP_TIMEOUT }),
		page.locator(selector).click()
	]);
	const tab = await target.page();
	if (!tab) throw new Error(`the tab at ${target.url()} has no page`);
	tab.setDefaultTimeout(STEP_TIMEOUT);
	return tab;
}

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

export async function newFirefoxPage(browser: Browser): Promise<Page> {
	const page = await browser.newPage();
	page.setDefaultTimeout(STEP_TIMEOUT);
	return page;
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

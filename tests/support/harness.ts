/**
 * The crypto worker's test page (tests/pages/crypto, served by the global setup) in a Playwright page,
 * for the worker and key store tests: opening it, and calling the worker client with outcomes that keep
 * the ContractError code.
 */
import { expect, type Page } from '@playwright/test';
import type { CryptoHarness } from '../pages/crypto/harness';

declare global {
	interface Window {
		cryptoHarness: CryptoHarness;
	}
}

/** Where the test page is: the test pages' server started by the global setup. */
export function harnessUrl(): string {
	if (!process.env.TEST_PAGES_URL) throw new Error('TEST_PAGES_URL is not set: run through the global setup');
	return `${process.env.TEST_PAGES_URL}/crypto/`;
}

export async function openHarness(page: Page): Promise<void> {
	await page.goto(harnessUrl());
	await page.waitForFunction(
		() => 'cryptoHarness' in window || document.querySelector('[data-testid=status]')?.textContent?.startsWith('failed')
	);
	const status = await page.getByTestId('status').textContent();
	if (status !== 'ready') throw new Error(`the harness did not start: ${status}`);
}

export type Outcome = { ok: true; value: unknown } | { ok: false; name: string; code?: string; message: string; contractError: boolean };

/** Calls a method of the page's CryptoWorkerClient; the outcome tells whether it threw a ContractError, and its code. */
export function call(page: Page, method: string, ...args: unknown[]): Promise<Outcome> {
	return page.evaluate(([name, input]) => window.cryptoHarness.call(name as never, ...(input as unknown[])), [method, args] as const);
}

/** The result of a call that must succeed. */
export async function succeed<T = Record<string, unknown>>(page: Page, method: string, ...args: unknown[]): Promise<T> {
	const outcome = await call(page, method, ...args);
	if (!outcome.ok) throw new Error(`${method} failed: ${outcome.code} ${outcome.message}`);
	return outcome.value as T;
}

/** The code of the ContractError a call must fail with (and proof that it is one). */
export async function failureCode(page: Page, method: string, ...args: unknown[]): Promise<string | undefined> {
	const outcome = await call(page, method, ...args);
	expect(outcome.ok, `${method} should fail`).toBe(false);
	if (outcome.ok) return undefined;
	expect(outcome.contractError, `${method} should throw a ContractError, threw ${outcome.name}: ${outcome.message}`).toBe(true);
	return outcome.code;
}

import { isHttpError } from '@sveltejs/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { load } from './+page.server';

const original = process.env.INBOX_TEST_PAGES;

afterEach(() => {
	if (original === undefined) delete process.env.INBOX_TEST_PAGES;
	else process.env.INBOX_TEST_PAGES = original;
});

const run = () => (load as unknown as () => unknown)();

describe('the crypto harness page', () => {
	it('answers 404 unless the server runs with INBOX_TEST_PAGES=1', () => {
		for (const value of [undefined, '', '0', 'true']) {
			if (value === undefined) delete process.env.INBOX_TEST_PAGES;
			else process.env.INBOX_TEST_PAGES = value;
			let status: number | undefined;
			try {
				run();
			} catch (error) {
				status = isHttpError(error) ? error.status : undefined;
			}
			expect(status, `INBOX_TEST_PAGES=${value}`).toBe(404);
		}
	});

	it('loads with INBOX_TEST_PAGES=1', () => {
		process.env.INBOX_TEST_PAGES = '1';
		expect(run()).toEqual({});
	});
});

/**
 * The browser test harness of the crypto worker and key store. It exists only when the
 * server runs with `INBOX_TEST_PAGES=1` (the Playwright stack and `npm run bench:browser`).
 */
import { error } from '@sveltejs/kit';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = () => {
	if (process.env.INBOX_TEST_PAGES !== '1') error(404, 'Not Found');
	return {};
};

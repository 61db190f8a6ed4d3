import { defineConfig } from '@playwright/test';
import { CHROMIUM_PATH } from './support/prerequisites';

/** End-to-end tests in Debian's Chromium against the production build (tests/*.e2e.ts). */
export default defineConfig({
	testDir: '.',
	testMatch: '**/*.e2e.ts',
	globalSetup: './support/global-setup.ts',
	outputDir: '../test-results',
	fullyParallel: false,
	workers: 1,
	timeout: 90_000,
	expect: { timeout: 15_000 },
	reporter: [['list']],
	use: {
		browserName: 'chromium',
		baseURL: process.env.INBOX_URL,
		trace: 'retain-on-failure',
		launchOptions: {
			executablePath: CHROMIUM_PATH,
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				'--disable-quic',
				'--no-first-run'
			]
		}
	}
});

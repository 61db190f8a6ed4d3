import { sveltekit } from '@sveltejs/kit/vite';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { libsodiumWasm } from './src/lib/crypto-worker/libsodium-wasm/plugin';

export default defineConfig({
	// in dev the workers go through `plugins`; built, through `worker.plugins`
	plugins: [libsodiumWasm(), sveltekit()],
	worker: { format: 'es', plugins: () => [libsodiumWasm()] },
	test: {
		testTimeout: 30_000,
		// every test asserts something that can fail: one that ends without a single expect fails
		expect: { requireAssertions: true },
		// The integration specs mostly wait on the servers they start, so even two cores run two files at once
		// (Vitest's default of cores − 1 ran them one by one here and took 5½ minutes instead of 3¼).
		maxWorkers: Math.max(2, availableParallelism() - 1),
		projects: [
			{
				extends: true,
				test: { name: 'server', include: ['src/**/*.spec.ts'], exclude: ['src/**/*.svelte.spec.ts'], environment: 'node' }
			},
			{
				// The page's rune stores, compiled for the browser as the page runs them, in a page of happy-dom (tests/support/page-environment.ts).
				extends: true,
				resolve: { conditions: ['browser'] },
				test: {
					name: 'client',
					include: ['src/**/*.svelte.spec.ts'],
					environment: './tests/support/page-environment.ts'
				}
			},
			{
				// Two `node build` processes behind HAProxy on one PostgreSQL, started once per file (tests/cluster/cluster.ts).
				extends: true,
				test: { name: 'cluster', include: ['tests/cluster/**/*.cluster.ts'], environment: 'node' }
			}
		]
	}
});

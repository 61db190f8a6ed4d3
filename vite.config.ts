import { sveltekit } from '@sveltejs/kit/vite';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
	plugins: [sveltekit()],
	worker: { format: 'es' },
	test: {
		include: ['src/**/*.spec.ts'],
		environment: 'node',
		testTimeout: 30_000,
		// The integration specs mostly wait on the servers they start, so even two cores run two files at once
		// (Vitest's default of cores − 1 ran them one by one here and took 5½ minutes instead of 3¼).
		maxWorkers: Math.max(2, availableParallelism() - 1)
	}
});

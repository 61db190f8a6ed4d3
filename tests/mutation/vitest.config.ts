/**
 * The Vitest configuration of the mutation run (docs/mutation-testing.md): only the in-process specs of
 * the mutated modules, the public conformance vectors among them (their runner is not mutated). The integration specs drive the production build in another process, where a
 * mutant is never active, so they would only cost time.
 */
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
	plugins: [sveltekit()],
	test: {
		include: [
			'src/lib/crypto/**/*.spec.ts',
			'src/lib/crypto-worker/**/*.spec.ts',
			'src/lib/conformance/**/*.spec.ts',
			'src/lib/errors.spec.ts',
			'src/lib/keystore/**/*.spec.ts',
			'src/lib/server/{auth,http,proxy,webhooks,conversations,admin,keys,api}/**/*.spec.ts'
		],
		environment: 'node',
		env: { INBOX_TEST_BACKENDS: 'PGlite' },
		// Each mutant reruns its covering tests: keeping the modules loaded (libsodium's and PGlite's WASM
		// among them) between runs is what makes the run fit two cores. Mutants switch at run time, so
		// a loaded module serves every mutant.
		isolate: false,
		testTimeout: 30_000,
		// as in vite.config.ts: a test that ends without a single expect fails
		expect: { requireAssertions: true }
	}
});

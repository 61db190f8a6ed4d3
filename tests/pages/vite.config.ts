/**
 * The test pages' own Vite build (tests/support/test-pages.ts), apart from the inbox's: `npm run build`
 * never sees them, so the production bundle holds no test page and no conformance harness. Each page is
 * an HTML entry here; workers land where the inbox's do (`/_app/immutable/workers/`), so that the test
 * pages' server gives them the inbox's own worker headers, and libsodium's `.wasm` beside them as the inbox ships it.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { libsodiumWasm } from '../../src/lib/crypto-worker/libsodium-wasm/plugin';

const page = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
	root: page('.'),
	publicDir: false,
	logLevel: 'warn',
	worker: {
		format: 'es',
		plugins: () => [libsodiumWasm()],
		rollupOptions: {
			output: {
				entryFileNames: '_app/immutable/workers/[name]-[hash].js',
				assetFileNames: '_app/immutable/workers/assets/[name]-[hash][extname]'
			}
		}
	},
	build: { emptyOutDir: true, rollupOptions: { input: { crypto: page('crypto/index.html') } } }
});

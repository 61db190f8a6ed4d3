import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';
import adapter from './src/lib/server/node/adapter.js';

/** @type {import('@sveltejs/kit').Config} */
const config = {
	preprocess: vitePreprocess(),
	kit: {
		// adapter-node with the inbox's own server as build/index.js (src/lib/server/node/)
		adapter: adapter(),
		// For specs only (`*.spec.ts`): the helpers under tests/support/. eslint.config.js forbids it in product code.
		alias: { '$test-support': 'tests/support' },
		csp: {
			mode: 'hash',
			directives: {
				'default-src': ['self'],
				'script-src': ['self', 'wasm-unsafe-eval'],
				'worker-src': ['self'],
				'style-src': ['self', 'unsafe-inline'],
				'img-src': ['self', 'blob:', 'data:'],
				'media-src': ['self', 'blob:'],
				'frame-src': ['self', 'blob:'],
				// each response adds the storage origins of STORAGE_ORIGINS (src/lib/server/http/security-headers.ts)
				'connect-src': ['self'],
				'object-src': ['none'],
				'base-uri': ['none'],
				'form-action': ['self'],
				'frame-ancestors': ['none']
			}
		}
	}
};

export default config;

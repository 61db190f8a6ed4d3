/**
 * The build's adapter (svelte.config.js): adapter-node, whose `build/index.js` is then replaced by the
 * inbox's own server, node/entry.ts bundled by esbuild over adapter-node's `./handler.js`
 * (docs/operations.md "The server process"). `node build` stays the way to run the inbox.
 */
import adapterNode from '@sveltejs/adapter-node';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OUT = 'build';

/** @returns {import('@sveltejs/kit').Adapter} */
export default function adapter() {
	const node = adapterNode({ out: OUT });
	return {
		name: 'inbox-node',
		async adapt(builder) {
			await node.adapt(builder);
			builder.log.minor('Writing the inbox server');
			const { build } = await import('esbuild');
			// as adapter-node bundles: the production dependencies stay imports, anything else is bundled
			const { dependencies = {} } = JSON.parse(readFileSync('package.json', 'utf8'));
			await build({
				entryPoints: [fileURLToPath(new URL('./entry.ts', import.meta.url))],
				outfile: `${OUT}/index.js`,
				bundle: true,
				platform: 'node',
				format: 'esm',
				target: 'node20',
				external: ['./handler.js', ...Object.keys(dependencies)],
				sourcemap: true,
				logLevel: 'warning'
			});
		},
		supports: node.supports
	};
}

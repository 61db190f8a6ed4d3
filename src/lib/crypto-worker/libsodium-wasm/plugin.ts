/**
 * The Vite plugin that ships libsodium's WebAssembly as a file of its own (docs/crypto-worker.md,
 * "libsodium's WebAssembly"), in the browser's code only (the server's libsodium is Node's, left as it is).
 * libsodium-sumo's script carries the module inlined as base64; the plugin
 * - ships those bytes as `libsodium-sumo-<hash>.wasm` beside the workers (in dev, serves them at `DEV_PATH`),
 * - hands libsodium-wrappers-sumo, where it imports libsodium-sumo's factory, that factory compiling the
 *   file as it streams in (streaming.ts),
 * - and empties the base64 text in libsodium-sumo's script, which nothing reads any more.
 * Both the crypto worker and its chunk workers run the same script, so they fetch the same file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const FACTORY = '\0libsodium-sumo-streamed';
const STREAMING = fileURLToPath(new URL('./streaming.ts', import.meta.url));
/** Where the dev server serves the file; a build names it after its content. */
const DEV_PATH = '/@libsodium/libsodium-sumo.wasm';
/** A WebAssembly module starts with the bytes \0asm: "AGFzbQ" in base64. */
const INLINED_MODULE = /"AGFzbQ[A-Za-z0-9+/]*={0,2}"/g;

const isWrappers = (id: string) => /[\\/]libsodium-wrappers-sumo[\\/]dist[\\/]/.test(id);

/**
 * The one base64 string literal of `script` that is a WebAssembly module, and where it stands; an error
 * if libsodium-sumo no longer has exactly one, or no longer takes the `instantiateWasm` hook.
 */
export function inlinedModule(script: string): { bytes: Buffer; start: number; end: number } {
	const found = [...script.matchAll(INLINED_MODULE)];
	if (found.length !== 1) throw new Error(`libsodium-sumo's script holds ${found.length} inlined WebAssembly modules, not 1`);
	if (!script.includes('.instantiateWasm')) throw new Error("libsodium-sumo's script no longer takes Emscripten's instantiateWasm hook");
	const [literal] = found;
	return { bytes: Buffer.from(literal[0].slice(1, -1), 'base64'), start: literal.index, end: literal.index + literal[0].length };
}

/** `script` with its inlined module's text emptied: what the browser downloads of libsodium-sumo. */
export function withoutInlinedModule(script: string): string {
	const { start, end } = inlinedModule(script);
	return `${script.slice(0, start)}""${script.slice(end)}`;
}

export function libsodiumWasm(): Plugin {
	let serving = false;
	/** In dev, or in a worker's bundle: a build's pages never run libsodium, and an asset emitted for them would ship unused. */
	let active = false;
	/** libsodium-sumo's ESM script, as the wrappers resolve it (in dev, with a `?v=` of the dependencies' version). */
	let libsodiumScript: string | undefined;
	let wasm: Buffer | undefined;
	return {
		name: 'inbox:libsodium-wasm',
		enforce: 'pre',
		// pre-bundled, the wrappers would import libsodium-sumo with no plugin in the way
		config: () => ({ optimizeDeps: { exclude: ['libsodium-wrappers-sumo', 'libsodium-sumo'] } }),
		configResolved(config) {
			serving = config.command === 'serve';
			active = serving || config.isWorker;
		},
		configureServer(server) {
			server.middlewares.use(DEV_PATH, (_request, response, next) => {
				// known once a worker has imported libsodium, which it does before it fetches the file
				if (!wasm) return next();
				response.writeHead(200, { 'content-type': 'application/wasm', 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' });
				response.end(wasm);
			});
		},
		async resolveId(source, importer, options) {
			if (!active || source !== 'libsodium-sumo' || !importer || !isWrappers(importer) || options.ssr) return null;
			const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
			if (!resolved) return null;
			libsodiumScript = resolved.id;
			return FACTORY;
		},
		load(id) {
			if (id !== FACTORY || !libsodiumScript) return null;
			wasm ??= inlinedModule(readFileSync(libsodiumScript.replace(/\?.*$/, ''), 'utf8')).bytes;
			const imports = [
				`import createLibsodium from ${JSON.stringify(libsodiumScript)};`,
				`import { withStreamedWasm } from ${JSON.stringify(STREAMING)};`
			];
			if (!serving) {
				const file = this.emitFile({ type: 'asset', name: 'libsodium-sumo.wasm', source: wasm });
				return [...imports, `export default withStreamedWasm(createLibsodium, import.meta.ROLLUP_FILE_URL_${file});`].join('\n');
			}
			// a path of this server, held in a variable: Vite rewrites `new URL('/…', import.meta.url)` to a file's
			return [
				...imports,
				`const devPath = ${JSON.stringify(DEV_PATH)};`,
				`export default withStreamedWasm(createLibsodium, new URL(devPath, import.meta.url).href);`
			].join('\n');
		},
		transform(code, id, options) {
			if (id !== libsodiumScript || options?.ssr) return null;
			return { code: withoutInlinedModule(code), map: null };
		}
	};
}

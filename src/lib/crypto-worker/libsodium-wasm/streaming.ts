/**
 * libsodium's module compiled as its `.wasm` file streams in (docs/crypto-worker.md, "libsodium's
 * WebAssembly"): libsodium-sumo's factory given Emscripten's `instantiateWasm` hook, so that it never
 * decodes the base64 copy its script carries. plugin.ts hands the result to libsodium-wrappers-sumo in
 * place of the factory, with the URL of the file it ships.
 */

/** What libsodium-sumo's factory (an Emscripten module factory) reads of its options here. */
export interface EmscriptenOptions {
	instantiateWasm?(
		imports: WebAssembly.Imports,
		receiveInstance: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void
	): Record<string, never>;
	[option: string]: unknown;
}

export type ModuleFactory<Module> = (options?: EmscriptenOptions) => Promise<Module>;

/**
 * `createModule` instantiating its WebAssembly from `wasmUrl` (served as `application/wasm`) as it streams
 * in. Emscripten gives the hook no way to fail, so a fetch or compilation that fails rejects the promise
 * beside it: the caller's `ready` rejects instead of waiting for ever.
 */
export function withStreamedWasm<Module>(createModule: ModuleFactory<Module>, wasmUrl: string): ModuleFactory<Module> {
	return (options = {}) => {
		let fail: (reason: unknown) => void = () => {};
		const failed = new Promise<never>((_, reject) => (fail = reject));
		const created = createModule({
			...options,
			instantiateWasm(imports, receiveInstance) {
				WebAssembly.instantiateStreaming(fetch(wasmUrl), imports).then(({ instance, module }) => receiveInstance(instance, module), fail);
				return {};
			}
		});
		return Promise.race([created, failed]);
	};
}

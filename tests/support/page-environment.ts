/**
 * The Vitest environment of the rune stores' specs: a page's DOM and storage from happy-dom, with the
 * runtime's own network primitives kept, and an XMLHttpRequest over the runtime's fetch for uploads
 * (fetch-xhr.ts). The page's relative calls go through PageNetwork (the inbox's origin and session
 * cookie, as a browser sends them), while the spec's own clients (the simulator's control API, an admin)
 * need a network without a browser's same-origin rules.
 */
import { builtinEnvironments, type Environment } from 'vitest/runtime';
import { xhrOver } from './fetch-xhr';

const NETWORK = ['fetch', 'Request', 'Response', 'Headers', 'AbortController', 'AbortSignal', 'FormData', 'Blob', 'File'] as const;

const page: Environment = {
	name: 'page',
	viteEnvironment: 'client',
	async setup(global, options) {
		const network = NETWORK.map((name) => [name, global[name]] as const);
		const dom = await builtinEnvironments['happy-dom'].setup(global, options);
		for (const [name, value] of network) global[name] = value;
		global.XMLHttpRequest = xhrOver(global.fetch);
		return { teardown: (target) => dom.teardown(target) };
	}
};

export default page;

/**
 * adapter-node's `build/handler.js`, beside which node/entry.ts is written (node/adapter.js): its static
 * files (sirv over `build/client`), then SvelteKit. Importing it starts the app: SvelteKit's `init` hook
 * (hooks.server.ts) has run, configuration checked, once the import resolves.
 */
import type { Handler } from './request-listener';

export const handler: Handler;

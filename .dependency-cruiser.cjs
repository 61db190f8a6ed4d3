/**
 * The floor plan as rules (docs/architecture.md): who may import whom. `npm run check` runs them and
 * fails on any violation, so the plan in the docs and the code cannot drift apart.
 */
/**
 * Files that run on the server only, besides src/lib/server: the hooks, the routes' server files, the
 * command line, and the build's configuration (which writes the server's entry).
 */
const SERVER_EDGE = '^(src/(hooks\\.server\\.ts|routes/.+/\\+(server|page\\.server|layout\\.server)\\.ts|cli/)|svelte\\.config\\.js$)';
/** Tests and what only tests use. */
const TEST_CODE = '(\\.(spec|e2e)\\.ts$|^tests/)';

module.exports = {
	forbidden: [
		{
			name: 'no-circular',
			severity: 'error',
			comment: 'Modules that import each other in a loop cannot be understood, tested or moved one at a time.',
			from: {},
			to: { circular: true }
		},
		{
			name: 'crypto-core-is-pure',
			severity: 'error',
			comment:
				'src/lib/crypto is the contract over libsodium and nothing else: no worker, key store, server, client, UI, simulator or framework.',
			from: { path: '^src/lib/crypto/', pathNot: TEST_CODE },
			to: {
				path: [
					'^src/lib/(server|client|ui|keystore|search|crypto-worker|conformance|inbox-api)/',
					'^src/(routes|sim|cli)/',
					'^node_modules/(svelte|@sveltejs|comlink|idb|pg|@electric-sql)/'
				]
			}
		},
		{
			name: 'shared-logic-is-pure',
			severity: 'error',
			comment:
				'src/lib/service-targets is the calendar and rules the page and the server both run: no server, client, UI, worker, key store or framework.',
			from: { path: '^src/lib/service-targets/', pathNot: TEST_CODE },
			to: {
				path: [
					'^src/lib/(server|client|ui|keystore|crypto-worker|conformance|inbox-api)/',
					'^src/(routes|sim|cli)/',
					'^node_modules/(svelte|@sveltejs|comlink|idb|pg|@electric-sql)/'
				]
			}
		},
		{
			name: 'secrets-stay-on-the-server',
			severity: 'error',
			comment: 'Only the server imports src/lib/server (SvelteKit refuses it in the browser; this keeps shared code from leaning on it).',
			from: { pathNot: ['^src/lib/server/', SERVER_EDGE, TEST_CODE] },
			to: { path: '^src/lib/server/' }
		},
		{
			name: 'product-code-never-imports-tests',
			severity: 'error',
			comment: "Product code never depends on tests/ or the simulator's test support; what both need lives under src/.",
			from: { path: '^src/', pathNot: [TEST_CODE, '^src/sim/testing/'] },
			to: { path: ['^tests/', '^src/sim/testing/'] }
		},
		{
			name: 'the-browser-never-imports-the-simulator',
			severity: 'error',
			comment: 'The simulator plays the service and the customer; the inbox reaches it only over HTTP.',
			from: { path: '^src/(lib|routes)/', pathNot: TEST_CODE },
			to: { path: '^src/sim/' }
		},
		{
			name: 'the-simulator-shares-only-the-core',
			severity: 'error',
			comment: 'DESIGN: the simulator shares no code with the inbox but the crypto core (and its wire reader of /v1 shapes it checks).',
			from: { path: '^src/sim/', pathNot: TEST_CODE },
			to: { path: '^src/lib/(server|client|ui|keystore|search|crypto-worker|conformance|inbox-api)/' }
		}
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: 'tsconfig.json' },
		enhancedResolveOptions: {
			exportsFields: ['exports'],
			conditionNames: ['import', 'require', 'node', 'default', 'types', 'svelte'],
			extensions: ['.ts', '.js', '.svelte', '.json']
		},
		exclude: { path: ['^\\.svelte-kit/', '^build/', '^node_modules/'] }
	}
};

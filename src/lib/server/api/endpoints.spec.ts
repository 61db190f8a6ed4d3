import { describe, expect, it } from 'vitest';
import { INBOX_API, type Endpoint } from '../../inbox-api/endpoints';
import { accessOf } from './access-policy';

/** Every route file, by SvelteKit's route id. */
const routeModules = import.meta.glob<Record<string, unknown>>('/src/routes/**/+server.ts');

function routeIdOf(file: string): string {
	return file.replace(/^\/src\/routes/, '').replace(/\/\+server\.ts$/, '');
}

describe('the inbox API declared once (src/lib/inbox-api/endpoints.ts; docs/inbox-api.md)', () => {
	it('serves each declared endpoint from the route file of its route id, under its method, and nowhere else', async () => {
		const served = new Map<Endpoint, string>();
		for (const [file, load] of Object.entries(routeModules)) {
			const routeId = routeIdOf(file);
			const module = await load();
			for (const [name, handler] of Object.entries(module)) {
				const endpoint = (handler as { endpoint?: Endpoint }).endpoint;
				if (!endpoint) continue;
				expect([routeId, name], `${file} exports ${name} bound to ${endpoint.method} ${endpoint.route}`).toEqual([
					endpoint.route,
					endpoint.method
				]);
				expect(served.has(endpoint), `${endpoint.method} ${endpoint.route} is served twice`).toBe(false);
				served.set(endpoint, routeId);
			}
		}
		const declared = Object.values(INBOX_API) as Endpoint[];
		expect(declared.filter((endpoint) => !served.has(endpoint)).map((endpoint) => `${endpoint.method} ${endpoint.route}`)).toEqual([]);
		expect(served.size).toBe(declared.length);
	});

	it('names who may call every declared endpoint in the access table', () => {
		for (const endpoint of Object.values(INBOX_API) as Endpoint[]) {
			expect(accessOf(endpoint.route, endpoint.method), `${endpoint.method} ${endpoint.route}`).toBeDefined();
		}
	});

	it('declares each method and route once', () => {
		const keys = (Object.values(INBOX_API) as Endpoint[]).map((endpoint) => `${endpoint.method} ${endpoint.route}`);
		expect(new Set(keys).size).toBe(keys.length);
	});
});

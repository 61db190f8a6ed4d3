/**
 * A small method + path router for the simulator's three surfaces (`/v1`, `/_sim`, storage):
 * `:name` segments become parameters; a known path asked with another method is told which
 * methods it allows (`405 METHOD_NOT_ALLOWED`, docs/contract-gaps.md §2).
 */

export type Params = Record<string, string>;

interface Route<H> {
	method: string;
	pattern: RegExp;
	names: string[];
	handler: H;
}

export type RouteMatch<H> = { kind: 'found'; handler: H; params: Params } | { kind: 'method'; allowed: string[] } | { kind: 'none' };

export class Router<H> {
	private readonly routes: Route<H>[] = [];

	add(method: string, path: string, handler: H): this {
		const names: string[] = [];
		const source = path
			.split('/')
			.map((segment) => {
				if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
				names.push(segment.slice(1));
				return '([^/]+)';
			})
			.join('/');
		this.routes.push({ method, pattern: new RegExp(`^${source}$`), names, handler });
		return this;
	}

	match(method: string, path: string): RouteMatch<H> {
		const allowed: string[] = [];
		for (const route of this.routes) {
			const found = route.pattern.exec(path);
			if (!found) continue;
			if (route.method !== method) {
				allowed.push(route.method);
				continue;
			}
			const params: Params = {};
			try {
				route.names.forEach((name, index) => (params[name] = decodeURIComponent(found[index + 1])));
			} catch {
				return { kind: 'none' };
			}
			return { kind: 'found', handler: route.handler, params };
		}
		return allowed.length ? { kind: 'method', allowed } : { kind: 'none' };
	}
}

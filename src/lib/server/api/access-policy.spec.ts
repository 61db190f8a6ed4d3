import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { V1_ROUTES, type V1RouteName } from '../../wire/v1';
import { accessOf, ACCESS_LEVELS, CONVERSATION_LEVELS, HTTP_METHODS, PROXIED, PROXY_ACCESS, ROUTE_ACCESS } from './access-policy';

const ROUTES = join(process.cwd(), 'src', 'routes');

/** Every file under src/routes that answers requests on the server, with the route id SvelteKit gives it. */
function serverRouteFiles(): { routeId: string; file: string; methods: string[] }[] {
	const found: { routeId: string; file: string; methods: string[] }[] = [];
	const visit = (directory: string) => {
		for (const name of readdirSync(directory).sort()) {
			const path = join(directory, name);
			if (statSync(path).isDirectory()) visit(path);
			else if (/^\+(server|page\.server|layout\.server)\.ts$/.test(name)) {
				const segments = relative(ROUTES, directory)
					.split(sep)
					.filter((segment) => segment !== '');
				// route groups `(app)` are not part of the id's URL, but SvelteKit keeps them in `route.id`
				const routeId = `/${segments.join('/')}`;
				const source = readFileSync(path, 'utf8');
				const methods = [...source.matchAll(/^export const (GET|POST|PUT|PATCH|DELETE|fallback|load|actions)\b/gm)].map(
					(match) => match[1]
				);
				found.push({ routeId, file: relative(process.cwd(), path), methods });
			}
		}
	};
	visit(ROUTES);
	return found;
}

describe('the access table (docs/inbox-api.md §1 "Access")', () => {
	const files = serverRouteFiles().filter((file) => file.file.endsWith('+server.ts'));

	it('names who may call every method of every route file under src/routes, and no route that does not exist', () => {
		expect(files.length).toBeGreaterThan(50);
		for (const { routeId, file, methods } of files) {
			expect(ROUTE_ACCESS[routeId], `${file} (${routeId}) has no entry in the access table`).toBeDefined();
			for (const method of methods.filter((name) => name !== 'fallback')) {
				expect(accessOf(routeId, method), `${method} ${routeId}`).toBeDefined();
			}
			const entry = ROUTE_ACCESS[routeId];
			if (entry !== PROXIED && !('anyMethod' in entry)) {
				// the table opens no method the file does not answer
				expect(Object.keys(entry).sort(), routeId).toEqual(methods.filter((name) => name !== 'fallback').sort());
			}
		}
		expect(Object.keys(ROUTE_ACCESS).sort()).toEqual(files.map((file) => file.routeId).sort());
	});

	it('has no page whose server code runs outside the table', () => {
		const pageServerFiles = serverRouteFiles().filter((file) => !file.file.endsWith('+server.ts'));
		// No page has server code (the test pages are not routes of the inbox: tests/pages, built by the tests).
		expect(pageServerFiles.map((file) => file.routeId)).toEqual([]);
	});

	it('names a level of the list for every entry; the conversation levels only where the route names its conversation', () => {
		for (const [routeId, entry] of Object.entries(ROUTE_ACCESS)) {
			if (entry === PROXIED) continue;
			for (const level of Object.values(entry)) {
				expect(ACCESS_LEVELS, routeId).toContain(level);
				if (CONVERSATION_LEVELS.has(level))
					expect(routeId, `${routeId} is ${level} but has no [conversationId]`).toMatch(/\[conversationId\]/);
			}
		}
	});

	it('names every /v1 route the contract has, forwarding to agents only their conversation work, each with where its conversation is', () => {
		expect(Object.keys(PROXY_ACCESS).sort()).toEqual(Object.keys(V1_ROUTES).sort());
		const forwarded = Object.entries(PROXY_ACCESS)
			.filter(([, rule]) => rule !== null)
			.map(([name]) => name as V1RouteName);
		expect(forwarded.sort()).toEqual(
			[
				'close',
				'createAttachmentUpload',
				'getAttachmentDownload',
				'getConversation',
				'listConversations',
				'listMessages',
				'markRead',
				'sendMessage',
				'typing'
			].sort()
		);
		for (const name of forwarded) {
			const rule = PROXY_ACCESS[name]!;
			expect(ACCESS_LEVELS, name).toContain(rule.access);
			if (CONVERSATION_LEVELS.has(rule.access)) {
				expect(rule.conversation, name).toBe(/conversations/.test(V1_ROUTES[name].pattern.source) ? 'path' : 'body');
			} else expect(rule.conversation, name).toBeUndefined();
		}
	});

	it('answers HEAD as GET, any method of a route open to any method, and nothing else', () => {
		expect(accessOf('/api/conversations', 'HEAD')).toBe('session');
		expect(accessOf('/api/[...unknown]', 'OPTIONS')).toBe('anonymous');
		expect(accessOf('/api/v1/[...rest]', 'POST')).toBe(PROXIED);
		expect(accessOf('/api/conversations', 'POST')).toBeUndefined();
		expect(accessOf('/api/nowhere', 'GET')).toBeUndefined();
		for (const method of HTTP_METHODS) expect(accessOf('/api/admin/audit', method)).toBe(method === 'GET' ? 'admin' : undefined);
	});
});

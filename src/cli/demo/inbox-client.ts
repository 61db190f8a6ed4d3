/**
 * The inbox's own API (docs/inbox-api.md) from Node, as one signed-in account: the session cookie, the
 * `Origin` every non-GET call needs, JSON errors as ContractErrors. Used by the demo launcher to act as
 * the demo accounts, and by the end-to-end tests to prepare what the screens under test need.
 */
import { codeForStatus, ContractError, isContractCode } from '../../lib/errors';

export class InboxClient {
	private cookie = '';

	constructor(readonly origin: string) {}

	static async signIn(origin: string, username: string, password: string): Promise<InboxClient> {
		const client = new InboxClient(origin);
		await client.call('POST', '/api/session', { username, password });
		return client;
	}

	async call<T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
		const response = await fetch(`${this.origin}${path}`, {
			method,
			headers: {
				accept: 'application/json',
				origin: this.origin,
				...(this.cookie ? { cookie: this.cookie } : {}),
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...headers
			},
			body: body === undefined ? undefined : JSON.stringify(body)
		});
		const setCookie = response.headers.get('set-cookie');
		if (setCookie) this.cookie = setCookie.split(';')[0];
		const text = await response.text();
		if (!response.ok) {
			let code: unknown;
			let message = `${method} ${path} answered ${response.status}`;
			try {
				const error = (JSON.parse(text) as { error?: { code?: unknown; message?: string } }).error;
				code = error?.code;
				message = `${message}: ${error?.message ?? text}`;
			} catch {
				message = `${message}: ${text}`;
			}
			throw new ContractError(isContractCode(code) ? code : codeForStatus(response.status, 'inbox'), message, response.status);
		}
		return (text ? JSON.parse(text) : undefined) as T;
	}
}

/**
 * The simulated customer app, driven through the simulator's control API (docs/simulator.md): redeem a
 * link or a short code, write, read what the company sent (decrypted by the app), change device.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- the simulator's JSON answers are read loosely; the specs assert on them */
async function control(simUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
	const response = await fetch(simUrl + path, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body)
	});
	const text = await response.text();
	return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function expectOk(simUrl: string, method: string, path: string, body?: unknown): Promise<any> {
	const answer = await control(simUrl, method, path, body);
	if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
	return answer.body;
}

export class Customer {
	private constructor(
		readonly simUrl: string,
		readonly customerId: string,
		readonly conversationId: string
	) {}

	/** Redeems an invitation: `{ link }` (with its fragment) or `{ shortCode }`. */
	static async redeem(simUrl: string, invitation: { link: string } | { shortCode: string }): Promise<Customer> {
		const view = await expectOk(simUrl, 'POST', '/_sim/customers/redeem', invitation);
		return new Customer(simUrl, view.customerId, view.conversationId);
	}

	say(text: string): Promise<any> {
		return expectOk(this.simUrl, 'POST', `/_sim/customers/${this.customerId}/messages`, { text });
	}

	/** The conversation as the customer's phone shows it, decrypted. */
	messages(): Promise<any[]> {
		return expectOk(this.simUrl, 'GET', `/_sim/customers/${this.customerId}/messages`);
	}

	view(): Promise<any> {
		return expectOk(this.simUrl, 'GET', `/_sim/customers/${this.customerId}`);
	}

	/** A new phone redeeming a re-invitation (contract 6.4). */
	changeDevice(invitation: { link: string } | { shortCode: string }): Promise<any> {
		return expectOk(this.simUrl, 'POST', `/_sim/customers/${this.customerId}/change-device`, invitation);
	}
}

/** The link with another invite secret in `#s=`: the customer's binding then proves nothing (BINDING_INVALID). */
export function withForeignSecret(link: string): string {
	return link.replace(/#s=[A-Za-z0-9_-]+/, `#s=${Buffer.alloc(32, 9).toString('base64url')}`);
}

export function simControl(simUrl: string) {
	return { control: (method: string, path: string, body?: unknown) => control(simUrl, method, path, body) };
}

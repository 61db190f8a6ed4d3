/**
 * Webhook load on the cluster (docs/operations.md "Behind a load balancer"): customers who redeemed the
 * admin's invitations write messages back to back through the simulator, which delivers each as a
 * `message.created` webhook through HAProxy.
 */
import { Customer } from '../support/customer';
import type { Cluster } from './cluster';

/** `count` customers, each in a conversation of their own started from an invitation made through HAProxy. */
export async function newCustomers(cluster: Cluster, count: number): Promise<Customer[]> {
	const admin = await cluster.admin();
	return Promise.all(
		Array.from({ length: count }, async () => {
			const invited = await admin.post('/api/invites', {});
			if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
			return Customer.redeem(cluster.sim.url, { link: invited.body.link });
		})
	);
}

export interface CustomerLoad {
	customers: Customer[];
	conversationIds: string[];
	/** Events the simulator emitted for these conversations: each conversation's start and every message. */
	readonly events: number;
	/** Resolves once `sent` messages in all have been written (the simulator emitted their events). */
	reached(sent: number): Promise<void>;
	/** Resolves once every customer has written all their messages. */
	done: Promise<void>;
}

/** `customers` customers each writing `messagesEach` messages, all at once. */
export async function startCustomerLoad(cluster: Cluster, customers: number, messagesEach: number, label: string): Promise<CustomerLoad> {
	const writers = await newCustomers(cluster, customers);
	let sent = 0;
	const waiting: { at: number; resolve: () => void }[] = [];
	const write = async (customer: Customer) => {
		for (let n = 0; n < messagesEach; n++) {
			await customer.say(`${label} ${n}`);
			sent++;
			for (const waiter of waiting.filter((entry) => entry.at <= sent)) {
				waiting.splice(waiting.indexOf(waiter), 1);
				waiter.resolve();
			}
		}
	};
	return {
		customers: writers,
		conversationIds: writers.map((customer) => customer.conversationId),
		events: customers * (messagesEach + 1),
		reached: (at) => (sent >= at ? Promise.resolve() : new Promise((resolve) => waiting.push({ at, resolve }))),
		done: Promise.all(writers.map(write)).then(() => undefined)
	};
}

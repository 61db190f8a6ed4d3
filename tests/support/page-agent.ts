/**
 * The agent of a page under test, for the rune stores' specs: signed in through the page's network with a
 * key made in the crypto worker, registered as the page registers it and put in a roster the admin signed,
 * so that conversations starting afterwards are sealed for her (docs/inbox-api.md §1 "Access"); customers
 * who write to her through the simulator; and a reply of another member of the team.
 */
import { expect, vi } from 'vitest';
import type { UnlockedKey } from '../../src/lib/crypto-worker/types';
import { createInvitation, getConversation, listStoredMessages, login, registerAgentKey } from '../../src/lib/client/api';
import { newIdempotencyKey } from '../../src/lib/client/http';
import type { StoredMessage } from '../../src/lib/client/types';
import { addToRoster, companyReplyBody } from './admin-api';
import { Customer } from './customer';
import type { InboxClient } from './inbox-client';
import { AGENT, ADMIN, type StackHarness } from './integration';

export const PAGE_PASSPHRASE = 'a passphrase of this page';

type PageKey = { accountId: string; key: UnlockedKey };

/** Signs the agent in on the page (its `fetch` is the PageNetwork's) with a new key of `crypto`, registered as the page registers it. */
export async function signInWithKey(crypto: { createAgentKey(passphrase: string): Promise<UnlockedKey> }): Promise<PageKey> {
	const key = await crypto.createAgentKey(PAGE_PASSPHRASE);
	const { accountId } = (await login(AGENT.username, AGENT.password)).account;
	await registerAgentKey({ agentKeyId: key.agentKeyId!, publicKey: key.publicKey });
	return { accountId, key };
}

/** The admin signs and uploads the next roster with the key added. */
export async function putInRoster(harness: StackHarness, key: UnlockedKey): Promise<void> {
	await addToRoster(harness.stack(), await harness.login(ADMIN), [{ agentKeyId: key.agentKeyId!, publicKey: key.publicKey }]);
}

/** Both: the agent signed in with a key in the roster. */
export async function signInWithKeyInRoster(
	harness: StackHarness,
	crypto: { createAgentKey(passphrase: string): Promise<UnlockedKey> }
): Promise<PageKey> {
	const agent = await signInWithKey(crypto);
	await putInRoster(harness, agent.key);
	return agent;
}

/** A customer who redeemed a new invitation of the page's agent and wrote `texts`, once the conversation is sealed for her. */
export async function customerWriting(harness: StackHarness, texts: readonly string[]): Promise<Customer> {
	const invitation = await createInvitation(newIdempotencyKey('invite'));
	const customer = await Customer.redeem(harness.stack().simUrl, { link: invitation.link });
	for (const text of texts) await customer.say(text);
	await vi.waitFor(
		async () => {
			if ((await getConversation(customer.conversationId)).agentWraps.length === 0) throw new Error('no wrap for the agent yet');
		},
		{ timeout: 30_000, interval: 100 }
	);
	return customer;
}

/** The inbox's stored copy of the customer's message `text` (what `/api/events` delivers), once the webhook arrived. */
export async function storedMessage(customer: Customer, text: string): Promise<StoredMessage> {
	const said = await customer.say(text);
	let found: StoredMessage | undefined;
	// the webhook takes its time on a loaded machine: the default second of polling is not enough
	await expect
		.poll(
			async () => {
				const stored = await listStoredMessages(customer.conversationId, { afterSeq: said.seq - 1, limit: 1 });
				found = stored.data.find((message) => message.messageId === said.messageId);
				return found !== undefined;
			},
			{ timeout: 15_000 }
		)
		.toBe(true);
	return found!;
}

/** A reply of another member of the team (`client`), sent through the proxy under the key the company's wrap opens. */
export async function replyOfTeamMember(harness: StackHarness, client: InboxClient, conversationId: string, text: string): Promise<void> {
	const conversation = (await client.get(`/api/v1/conversations/${conversationId}`)).body;
	const sent = await client.post('/api/v1/messages', await companyReplyBody(harness.stack(), conversationId, conversation, text));
	if (sent.status !== 201) throw new Error(`the reply was not sent: ${JSON.stringify(sent.body)}`);
}

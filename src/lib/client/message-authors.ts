/**
 * Who sent the company's messages (docs/inbox-api.md §4 "Message authors"): looked up from the inbox in
 * batches and kept for the tab, for the thread's bubbles and the list's previews. An author never
 * changes once recorded (the inbox records it before the message is sent), so answers are kept.
 */
import type { MessageAuthor } from '../inbox-api/records';
import { api } from './http';

export type { MessageAuthor };

type MessageRef = { conversationId: string; clientMessageId: string };

/** The inbox answers at most this many at once. */
const LOOKUP_BATCH = 200;

export const fetchMessageAuthors = (messages: readonly MessageRef[]) =>
	api<{ data: MessageAuthor[] }>('POST', '/api/message-authors', { body: { messages } });

const keyOf = (message: MessageRef) => `${message.conversationId} ${message.clientMessageId}`;

export class MessageAuthors {
	readonly #known = new Map<string, MessageAuthor>();

	constructor(private readonly fetchAuthors: typeof fetchMessageAuthors = fetchMessageAuthors) {}

	/** The authors of these messages, asking the inbox only about those not known yet. */
	async lookUp(messages: readonly MessageRef[]): Promise<MessageAuthor[]> {
		const missing = [...new Map(messages.filter((m) => !this.#known.has(keyOf(m))).map((m) => [keyOf(m), m])).values()];
		for (let start = 0; start < missing.length; start += LOOKUP_BATCH) {
			const { data } = await this.fetchAuthors(missing.slice(start, start + LOOKUP_BATCH));
			for (const author of data) this.#known.set(keyOf(author), author);
		}
		return messages.flatMap((message) => this.#known.get(keyOf(message)) ?? []);
	}

	clear(): void {
		this.#known.clear();
	}
}

/** A thread's authors by clientMessageId, with these added (the old map is never mutated, so runes see the change). */
export function withAuthors(
	known: ReadonlyMap<string, MessageAuthor>,
	authors: readonly MessageAuthor[]
): ReadonlyMap<string, MessageAuthor> {
	return new Map([...known, ...authors.map((author) => [author.clientMessageId, author] as const)]);
}

export const NO_AUTHORS: ReadonlyMap<string, MessageAuthor> = new Map();

/** How a company message's sender is named to `myAccountId`: "You", the agent, or where it came from. */
export function authorLabel(author: MessageAuthor | undefined, myAccountId: string): string | null {
	if (!author) return null;
	if (author.origin !== 'agent') return author.origin === 'inbox' ? 'Sent from the inbox' : 'Sent outside the inbox';
	return author.accountId === myAccountId ? 'You' : author.displayName;
}

/** A list preview: the customer's text as it is, the company's with who sent it. */
export function previewWithAuthor(text: string, senderType: 'user' | 'company', label: string | null): string {
	return senderType === 'user' || label === null ? text : `${label}: ${text}`;
}

/**
 * What the composer of an open conversation says before the agent writes: closed while the conversation
 * key is not open in this browser (contract 4.2 replies need K), and a warning where a reply would not
 * reach the customer (pending, awaiting_key, deleted; contract 6.4) or should not carry anything
 * sensitive (an invalid binding, contract 6.3), or would not reopen it (a resolved conversation,
 * docs/inbox-api.md §4 "Lifecycle").
 */
import type { ConversationView } from './types';

export type KeyState = 'opening' | 'open' | 'no-access' | 'failed';

type ComposerConversation = Pick<ConversationView, 'status' | 'trust' | 'userDeleted'> & Partial<Pick<ConversationView, 'teamState'>>;

/** Why the agent cannot write, or null when the key is open. */
export function composerBlockedReason(keyState: KeyState, conversation: ComposerConversation): string | null {
	if (keyState === 'opening') return 'Opening the conversation key…';
	if (keyState === 'failed') return 'You cannot write here: the conversation key cannot be opened.';
	if (keyState !== 'open' && conversation.status === 'pending') return 'The customer has not joined yet.';
	if (keyState !== 'open') return 'You cannot write here: this conversation is not shared with your key yet.';
	return null;
}

/** What the agent should know before writing, or null. */
export function composerWarning(keyState: KeyState, conversation: ComposerConversation): string | null {
	if (conversation.userDeleted) return 'The customer deleted their account: messages cannot be delivered any more.';
	if (conversation.status === 'pending' && keyState === 'open')
		return 'The customer has not joined yet: messages can be sent once they open the invitation.';
	if (conversation.status === 'awaiting_key')
		return 'The customer cannot read new messages until their new device has the key (see above).';
	if (conversation.trust === 'binding_invalid')
		return 'Warning: this conversation is not trusted (invalid binding). Do not share anything sensitive.';
	if (conversation.teamState === 'resolved') return 'This conversation is resolved: a reply leaves it resolved. Reopen it to work on it.';
	return null;
}

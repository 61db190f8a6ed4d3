/**
 * Plain sentences for the codes an agent may meet (contract 7.1 and 7.3, docs/inbox-api.md §1): why a
 * message shows no text, and what to do when a send, an upload or a key operation fails.
 */
import { ContractError, type ContractCode } from '../errors';

/** Why a message cannot be shown (contract 6.2, 4.4): said in place of its text. */
const MESSAGE_PROBLEMS: Partial<Record<ContractCode, string>> = {
	DECRYPT_FAILED: 'This message could not be decrypted: it was altered on the way or sealed with another key.',
	BAD_PADDING: 'This message decrypted, but its padding is malformed, so its content cannot be trusted.',
	KEY_MISMATCH: 'This message does not belong to this conversation (its key or attachment does not match).',
	UNSUPPORTED_VERSION: 'This message uses a format this inbox does not know yet.',
	INVALID_INPUT: 'This message is malformed (bad encoding or fields), so it cannot be shown.',
	LOCKED: 'Your key is locked. Unlock it to read this message.',
	CONVERSATION_KEY_NOT_OPEN: 'The conversation key is not open in this browser yet.'
};

/** What went wrong, and what to do, for an operation the agent started. */
const ACTION_PROBLEMS: Partial<Record<ContractCode, string>> = {
	CONVERSATION_AWAITING_KEY:
		'The customer changed device and their new key has not been given access yet. Confirm the re-invitation (or wait until it is verified), then send again.',
	CONVERSATION_PENDING: 'The customer has not joined yet. You can write once they open the invitation.',
	KEY_VERSION_MISMATCH: 'The conversation key changed meanwhile. Reload the conversation, then send again.',
	USER_DELETED: 'The customer deleted their account. This conversation cannot receive messages any more.',
	ATTACHMENT_NOT_UPLOADED: 'The file did not reach the storage. Send it again.',
	ATTACHMENT_ALREADY_USED: 'This upload was already used by another message. Send the file again.',
	ATTACHMENT_NOT_FOUND: 'The file is no longer available on the service.',
	IDEMPOTENCY_CONFLICT: 'A different request already used this retry key. Write the message again.',
	INVALID_ENVELOPE: 'The service refused the encrypted message as malformed.',
	RATE_LIMITED: 'Too many requests for now. Wait a moment and try again.',
	PAYLOAD_TOO_LARGE: 'This is too large to send.',
	UNAUTHENTICATED: 'Your session ended. Sign in again; nothing you wrote is lost.',
	FORBIDDEN: 'Your account is not allowed to do this.',
	ROUTE_NOT_ALLOWED: 'Your account is not allowed to do this.',
	NO_CONVERSATION_ACCESS: 'Only an admin or an agent who holds this conversation’s key may do this.',
	NOT_IN_ROSTER: 'Your key is not in the team’s signed roster yet: an admin must add you before you can do this.',
	SECOND_PERSON_REQUIRED:
		'You re-invited this customer: another agent with access, or an admin, must approve giving the new device the history.',
	ORIGIN_REJECTED: 'The request was refused because it did not come from this inbox. Reload the page.',
	UPSTREAM_UNAVAILABLE: 'The messaging service cannot be reached right now. Nothing is lost: retry in a moment.',
	UNAVAILABLE: 'The inbox server is having trouble right now. Retry in a moment.',
	INVALID_RESPONSE: 'The messaging service answered something the inbox cannot read. Retry in a moment.',
	NOT_FOUND: 'This no longer exists.',
	BINDING_INVALID:
		"The customer's new key is not bound to the invitation: it may have been substituted. Do not trust it; send a new re-invitation.",
	CONVERSATION_NOT_AWAITING_KEY: 'There is nothing to confirm: the conversation is not waiting for a key.',
	WRONG_PASSPHRASE: 'That passphrase does not open the key. Nothing was changed.',
	KEY_NOT_FOUND: 'No key is stored in this browser.',
	KEY_EXISTS: 'Another key is already stored in this browser.',
	STORAGE_UNAVAILABLE: 'This browser refuses to store keys (private mode or storage blocked).',
	ALREADY_EXISTS: 'That is already registered to another account.',
	INVALID_CREDENTIALS: 'Wrong username or password.',
	DECRYPT_FAILED: 'The file could not be decrypted: it was altered or is incomplete. Nothing was saved.',
	KEY_MISMATCH: 'The file does not match the message that announced it.',
	LOCKED: 'Your key is locked. Unlock it, then try again.'
};

export function explainMessageProblem(code: ContractCode | string): string {
	return MESSAGE_PROBLEMS[code as ContractCode] ?? 'This message cannot be shown.';
}

/** A sentence for any error thrown by the API client, the proxy or the worker. */
export function explainError(error: unknown): string {
	if (error instanceof ContractError) {
		const known = ACTION_PROBLEMS[error.code];
		if (known) return known;
		return error.message && error.message !== error.code ? error.message : `The operation failed (${error.code}).`;
	}
	if (error instanceof TypeError) return 'The inbox server cannot be reached. Check your connection; nothing is lost.';
	if (error instanceof Error && error.message) return error.message;
	return 'Something went wrong.';
}

/** The code of an error, for showing next to the sentence. */
export function errorCode(error: unknown): string | undefined {
	return error instanceof ContractError ? error.code : undefined;
}

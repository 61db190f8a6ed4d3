/** Shared by the worker's specs: a key session holding an agent key with one conversation's key open. */
import { generateX25519KeyPair } from '../../src/lib/crypto/keys';
import { sealConversationKey } from '../../src/lib/crypto/wrap';
import { KeySession } from '../../src/lib/crypto-worker/session';

export function sessionWithOpenKey(conversationId: string, conversationKey: Uint8Array, keyVersion: number): KeySession {
	const session = new KeySession();
	const pair = generateX25519KeyPair();
	const agent = session.hold({ info: { kind: 'agent', publicKey: '', fingerprint: '', createdAt: '', updatedAt: '' }, ...pair });
	session.openConversationKey(
		agent.handle,
		conversationId,
		sealConversationKey({ conversationKey, conversationId, keyVersion, recipientPublicKey: pair.publicKey })
	);
	return session;
}

/**
 * Records of every kind the Store keeps (docs/simulator.md, "Persistence"), put in through the Store
 * as the service would, for the persistence specs and `npm run bench:sim`. The ciphertexts are random
 * base64url of a short message's size; nothing here is valid cryptography.
 */
import { randomBytes } from 'node:crypto';
import { b64uEncode } from '../../lib/crypto/index';
import { newAttachmentId, newConversationId, newCustomerId, newDeliveryId, newEventId, newInviteId, newMessageId } from '../ids';
import type { Company, Conversation, Delivery, Message, SenderType, Store } from '../state';

const NOW_MS = Date.UTC(2026, 10, 27, 12);
const randomText = (bytes: number) => b64uEncode(randomBytes(bytes));

export function addCompany(store: Store, companyId: string): Company {
	const key = { keyVersion: 1, publicKey: randomText(32), platformSignature: randomText(64), activatedAtMs: NOW_MS };
	const company: Company = {
		companyId,
		apiKeyHash: randomBytes(32).toString('hex'),
		webhookSecret: `whsec_${randomText(32)}`,
		previousWebhookSecret: null,
		webhookSecretRotatedAtMs: null,
		webhookUrl: 'http://127.0.0.1:9/webhooks',
		signingPublicKey: randomText(32),
		currentKey: key,
		previousKeys: [],
		rosters: [
			{
				rosterVersion: 1,
				issuedAt: '2026-11-27T12:00:00Z',
				agents: [{ agentKeyId: 'agent-1', publicKey: randomText(32) }],
				signature: randomText(64),
				storedAtMs: NOW_MS
			}
		],
		servedRosterOverride: null,
		uploadTimesMs: [],
		createdAtMs: NOW_MS
	};
	store.addCompany(company);
	return company;
}

/** An active conversation with its invitation, customer and the app's memory of the company. */
export function addConversation(store: Store, company: Company): Conversation {
	const conversationId = newConversationId();
	const wrap = () => ({ keyVersion: 1, sealed: randomText(96) });
	const conversation: Conversation = {
		conversationId,
		companyId: company.companyId,
		status: 'active',
		keyVersion: 1,
		wrapForCompany: wrap(),
		wrapForUser: wrap(),
		userPublicKey: randomText(32),
		userDeleted: false,
		createdAtMs: NOW_MS,
		startedAtMs: NOW_MS,
		lastMessageAtMs: null,
		closedAtMs: null,
		messages: [],
		agentWraps: [{ agentKeyId: 'agent-1', rosterVersion: 1, wrap: wrap() }],
		agentWrapUploads: 1,
		companyReadUpTo: null,
		userReadUpTo: null,
		companyTypingUntilMs: null
	};
	store.addConversation(conversation);
	const shortCode = randomText(6).toUpperCase();
	store.addInvite({
		inviteId: newInviteId(),
		companyId: company.companyId,
		conversationId,
		isReinvite: false,
		shortCode,
		createdAtMs: NOW_MS,
		expiresAtMs: NOW_MS + 3_600_000,
		redeemedAtMs: NOW_MS,
		supersededAtMs: null
	});
	store.addCustomer({
		customerId: newCustomerId(),
		companyId: company.companyId,
		conversationId,
		publicKey: randomText(32),
		secretKey: randomText(32),
		createdAtMs: NOW_MS,
		deviceChangedAtMs: null,
		rosterRefusal: null,
		sealedForRosterVersion: 1
	});
	store.setAppMemory(company.companyId, { signingPublicKey: company.signingPublicKey, lastSeenRosterVersion: 1 });
	return conversation;
}

/**
 * A message of about a short text's size, as `appendMessage` stores it: a company's with the
 * Idempotency-Key of its request, a user's with the webhook delivery of its event.
 */
export function addMessage(store: Store, conversation: Conversation, senderType: SenderType): Message {
	const message: Message = {
		messageId: newMessageId(),
		seq: conversation.messages.length + 1,
		senderType,
		contentType: 'text',
		encryption: { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: randomText(12), nonce: randomText(24), ciphertext: randomText(256) },
		attachment: null,
		createdAtMs: NOW_MS + conversation.messages.length
	};
	conversation.messages.push(message);
	conversation.lastMessageAtMs = message.createdAtMs;
	store.changed('conversations', conversation.conversationId);
	if (senderType === 'company') {
		store.storeIdempotency(conversation.companyId, `send-${message.messageId}`, {
			requestHash: randomBytes(32).toString('hex'),
			status: 201,
			headers: {},
			body: JSON.stringify({ messageId: message.messageId, seq: message.seq }),
			createdAtMs: message.createdAtMs
		});
	} else store.addDelivery(deliveryOf(conversation, message));
	return message;
}

function deliveryOf(conversation: Conversation, message: Message): Delivery {
	const eventId = newEventId();
	return {
		deliveryId: newDeliveryId(),
		eventId,
		eventType: 'message.created',
		companyId: conversation.companyId,
		conversationId: conversation.conversationId,
		body: JSON.stringify({ id: eventId, type: 'message.created', data: { conversationId: conversation.conversationId, message } }),
		status: 'succeeded',
		attempts: 1,
		lastStatus: 200,
		lastError: null,
		nextAttemptAtMs: null,
		manualRetry: false,
		createdAtMs: message.createdAtMs,
		updatedAtMs: message.createdAtMs,
		attemptLog: [
			{
				attempt: 1,
				scheduledAtMs: message.createdAtMs,
				startedAtMs: message.createdAtMs,
				finishedAtMs: message.createdAtMs,
				url: 'http://127.0.0.1:9/webhooks',
				status: 200,
				error: null,
				injected: null,
				manual: false
			}
		]
	};
}

/** An uploaded attachment and its ciphertext, used by a new message of the user. */
export function addAttachment(store: Store, conversation: Conversation): Message {
	const bytes = new Uint8Array(randomBytes(300));
	const attachment = {
		attachmentId: newAttachmentId(),
		companyId: conversation.companyId,
		conversationId: conversation.conversationId,
		size: bytes.length,
		createdBy: 'user' as const,
		createdAtMs: NOW_MS,
		uploadedAtMs: NOW_MS,
		usedByMessageId: null as string | null
	};
	store.objects.set(attachment.attachmentId, bytes);
	store.addAttachment(attachment);
	const message = addMessage(store, conversation, 'user');
	message.attachment = { attachmentId: attachment.attachmentId, size: attachment.size };
	attachment.usedByMessageId = message.messageId;
	return message;
}

/** Everything the Store holds, to compare a reloaded Store with the one that was written. */
export function contentsOf(store: Store) {
	return {
		platform: store.platform,
		storageSecret: store.storageSecret,
		companies: store.companies,
		companyByApiKeyHash: store.companyByApiKeyHash,
		conversations: store.conversations,
		invites: store.invites,
		inviteByShortCode: store.inviteByShortCode,
		attachments: store.attachments,
		objects: new Map([...store.objects].map(([attachmentId, bytes]) => [attachmentId, Buffer.from(bytes).toString('base64')])),
		deliveries: store.deliveries,
		customers: store.customers,
		appMemory: store.appMemory,
		idempotency: store.idempotency
	};
}

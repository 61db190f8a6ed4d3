/**
 * What a simulated customer does after redeeming (contract 2.5, 2.6, 4.3, 4.4, 6.2, 6.5): send text
 * and attachments encrypted with K as `user`, read the conversation decrypted (plaintext, for tests
 * and the demo page), fetch a received attachment's bytes, mark the company's messages read, change
 * device and delete the account.
 */
import {
	b64uDecode,
	b64uEncode,
	buildAttachmentMeta,
	ContractError,
	decryptAttachment,
	decryptMessage,
	encryptAttachment,
	encryptMessage,
	MAX_ATTACHMENT_SIZE,
	newClientMessageId,
	openConversationKey,
	parseReceivedAttachmentMeta,
	type AttachmentMeta
} from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { newAttachmentId, newCustomerId } from '../ids';
import { isoSeconds } from '../../lib/crypto/index';
import { createAttachment, storeObject } from '../service/attachments';
import { markUserDeleted } from '../service/conversations';
import { appendMessage, findMessage, requireWritable } from '../service/messages';
import type { Company, Conversation, Customer, Message } from '../state';
import { emitMessageRead } from '../webhooks/events';
import { redeemOnNewDevice, resolveInvite, type Redemption, type RedeemInput } from './redeem';

function conversationOf(ctx: SimContext, customer: Customer): Conversation {
	return ctx.store.conversations.get(customer.conversationId) as Conversation;
}

export function findCustomer(ctx: SimContext, customerId: string): Customer {
	const customer = ctx.store.customers.get(customerId);
	if (!customer) throw new ContractError('NOT_FOUND', `no customer ${customerId}`);
	return customer;
}

/** A deleted account can do nothing more. */
function activeConversation(ctx: SimContext, customer: Customer): Conversation {
	const conversation = conversationOf(ctx, customer);
	if (conversation.userDeleted) throw new ContractError('USER_DELETED', 'this customer deleted their account');
	return conversation;
}

function applyRedemption(customer: Customer, redemption: Redemption): void {
	customer.publicKey = b64uEncode(redemption.keyPair.publicKey);
	customer.secretKey = b64uEncode(redemption.keyPair.secretKey);
	customer.rosterRefusal = redemption.rosterRefusal;
	customer.sealedForRosterVersion = redemption.rosterVersion;
}

/** `POST /_sim/customers/redeem`: a new customer (a new phone) redeems an invitation or re-invitation. */
export function redeem(ctx: SimContext, input: RedeemInput): Customer {
	const redemption = redeemOnNewDevice(ctx, resolveInvite(ctx, input));
	const customer: Customer = {
		customerId: newCustomerId(),
		companyId: redemption.conversation.companyId,
		conversationId: redemption.conversation.conversationId,
		publicKey: '',
		secretKey: '',
		createdAtMs: ctx.clock.nowMs(),
		deviceChangedAtMs: null,
		rosterRefusal: null,
		sealedForRosterVersion: null
	};
	applyRedemption(customer, redemption);
	ctx.store.addCustomer(customer);
	return customer;
}

/** `POST /_sim/customers/{id}/change-device`: redeems a re-invitation of the same conversation with a new key pair. */
export function changeDevice(ctx: SimContext, customer: Customer, input: RedeemInput): Customer {
	activeConversation(ctx, customer);
	const resolved = resolveInvite(ctx, input);
	if (!resolved.invite.isReinvite || resolved.invite.conversationId !== customer.conversationId) {
		throw new ContractError('STATE_CONFLICT', "a device change redeems a re-invitation of the customer's own conversation");
	}
	applyRedemption(customer, redeemOnNewDevice(ctx, resolved));
	customer.deviceChangedAtMs = ctx.clock.nowMs();
	ctx.store.changed('customers', customer.customerId);
	return customer;
}

/** K, opened from the service's `wrapForUser` with this device's key; `409` while awaiting it. */
function conversationKey(customer: Customer, conversation: Conversation): Uint8Array {
	if (conversation.wrapForUser === null) {
		throw new ContractError('CONVERSATION_AWAITING_KEY', 'the business has not re-sealed the key for this device yet');
	}
	const keyPair = { publicKey: b64uDecode(customer.publicKey), secretKey: b64uDecode(customer.secretKey) };
	return openConversationKey(conversation.wrapForUser, conversation.conversationId, [keyPair]);
}

/** The customer's writing checks, then K (an old device's key no longer opens the wrap). */
function writableKey(ctx: SimContext, customer: Customer): { conversation: Conversation; key: Uint8Array } {
	const conversation = activeConversation(ctx, customer);
	requireWritable(conversation);
	try {
		return { conversation, key: conversationKey(customer, conversation) };
	} catch (error) {
		if (error instanceof ContractError && error.status === undefined)
			throw new ContractError(error.code, `this device cannot open the key: ${error.message}`, 409);
		throw error;
	}
}

function encryptAsUser(conversation: Conversation, key: Uint8Array, text: string) {
	return encryptMessage({
		text,
		conversationKey: key,
		conversationId: conversation.conversationId,
		senderType: 'user',
		clientMessageId: newClientMessageId('usr_'),
		keyVersion: conversation.keyVersion as number
	});
}

/** `POST /_sim/customers/{id}/messages`: a text message (or, for receiver tests, another `contentType`). */
export function sendText(ctx: SimContext, customer: Customer, text: string, contentType = 'text'): Message {
	const { conversation, key } = writableKey(ctx, customer);
	const encryption = encryptAsUser(conversation, key, text);
	return appendMessage(ctx, conversation, { senderType: 'user', contentType, encryption, attachment: null });
}

/** `POST /_sim/customers/{id}/attachments`: encrypts, stores the ciphertext, then sends the meta message. */
export function sendAttachment(
	ctx: SimContext,
	customer: Customer,
	input: { name: string; mime: string; data: Uint8Array; caption?: string }
): Message {
	const { conversation, key } = writableKey(ctx, customer);
	if (input.data.length > MAX_ATTACHMENT_SIZE)
		throw new ContractError('INVALID_INPUT', `a file holds at most ${MAX_ATTACHMENT_SIZE} bytes`, 400);
	const attachmentId = newAttachmentId();
	const encryption = encryptAttachment(input.data, { attachmentId });
	const meta = buildAttachmentMeta({
		attachmentId,
		name: input.name,
		mime: input.mime,
		size: input.data.length,
		encryption,
		caption: input.caption
	});
	const envelope = encryptAsUser(conversation, key, JSON.stringify(meta));
	const company = ctx.store.companies.get(customer.companyId) as Company;
	const attachment = createAttachment(ctx, company, conversation, encryption.ciphertext.length, 'user', attachmentId);
	storeObject(ctx, attachment, encryption.ciphertext);
	return appendMessage(ctx, conversation, { senderType: 'user', contentType: 'attachment', encryption: envelope, attachment });
}

/** The meta a listing shows: everything but the file key, nonce and digest. */
function visibleMeta(meta: AttachmentMeta) {
	const { attachmentId, name, mime, size, caption, width, height } = meta;
	return {
		attachmentId,
		name,
		mime,
		size,
		...(caption !== undefined ? { caption } : {}),
		...(width !== undefined ? { width, height } : {})
	};
}

export interface CustomerMessageView {
	messageId: string;
	seq: number;
	senderType: string;
	contentType: string;
	createdAt: string;
	text?: string;
	meta?: ReturnType<typeof visibleMeta>;
	/** F of an attachment (b64u), which the phone holds; tests look for it where it must never be. */
	fileKey?: string;
	error?: string;
	/** For the customer's own messages: the company marked it read. */
	readByCompany?: boolean;
}

function decryptedMeta(conversation: Conversation, key: Uint8Array, message: Message): AttachmentMeta {
	const text = decryptMessage(message.encryption, {
		conversationKey: key,
		conversationId: conversation.conversationId,
		senderType: message.senderType
	});
	return parseReceivedAttachmentMeta(text, message.attachment?.attachmentId ?? '');
}

/** `GET /_sim/customers/{id}/messages`: the conversation decrypted; unknown content types are left out (contract 2.5). */
export function listMessages(ctx: SimContext, customer: Customer): CustomerMessageView[] {
	const conversation = activeConversation(ctx, customer);
	let key: Uint8Array | null = null;
	let keyError: string | null = null;
	try {
		key = conversationKey(customer, conversation);
	} catch (error) {
		keyError = error instanceof ContractError ? error.code : 'DECRYPT_FAILED';
	}
	const readUpTo = conversation.companyReadUpTo === null ? 0 : findMessage(conversation, conversation.companyReadUpTo).seq;
	return conversation.messages
		.filter((message) => message.contentType === 'text' || message.contentType === 'attachment')
		.map((message) => {
			const view: CustomerMessageView = {
				messageId: message.messageId,
				seq: message.seq,
				senderType: message.senderType,
				contentType: message.contentType,
				createdAt: isoSeconds(message.createdAtMs)
			};
			if (message.senderType === 'user') view.readByCompany = message.seq <= readUpTo;
			if (key === null) return { ...view, error: keyError as string };
			try {
				if (message.contentType === 'attachment') {
					const meta = decryptedMeta(conversation, key, message);
					view.meta = visibleMeta(meta);
					view.fileKey = meta.key;
				} else
					view.text = decryptMessage(message.encryption, {
						conversationKey: key,
						conversationId: conversation.conversationId,
						senderType: message.senderType
					});
			} catch (error) {
				view.error = error instanceof ContractError ? error.code : 'DECRYPT_FAILED';
			}
			return view;
		});
}

/** `GET /_sim/customers/{id}/attachments/{attachmentId}`: the decrypted file of a message, whole or not at all. */
export function downloadAttachment(ctx: SimContext, customer: Customer, attachmentId: string): { meta: AttachmentMeta; bytes: Uint8Array } {
	const conversation = activeConversation(ctx, customer);
	const message = conversation.messages.find((candidate) => candidate.attachment?.attachmentId === attachmentId);
	if (!message) throw new ContractError('ATTACHMENT_NOT_FOUND', `no message of this conversation carries ${attachmentId}`);
	const ciphertext = ctx.store.objects.get(attachmentId);
	if (!ciphertext) throw new ContractError('ATTACHMENT_NOT_UPLOADED', `the bytes of ${attachmentId} were not uploaded`);
	try {
		const meta = decryptedMeta(conversation, conversationKey(customer, conversation), message);
		return { meta, bytes: decryptAttachment(ciphertext, meta) };
	} catch (error) {
		if (error instanceof ContractError && error.status === undefined)
			throw new ContractError(error.code, `the attachment cannot be opened: ${error.message}`, 422);
		throw error;
	}
}

/** `POST /_sim/customers/{id}/read`: the customer read the company's messages up to one (default: the latest). */
export function markReadByCustomer(ctx: SimContext, customer: Customer, upToMessageId: unknown): string {
	const conversation = activeConversation(ctx, customer);
	let target: Message | undefined;
	if (upToMessageId === undefined) target = conversation.messages.findLast((message) => message.senderType === 'company');
	else if (typeof upToMessageId === 'string') target = findMessage(conversation, upToMessageId);
	else throw new ContractError('INVALID_REQUEST', 'upToMessageId must be a message id');
	if (!target) throw new ContractError('NOT_FOUND', 'the company has sent no message yet');
	const current = conversation.userReadUpTo === null ? 0 : findMessage(conversation, conversation.userReadUpTo).seq;
	if (target.seq > current) conversation.userReadUpTo = target.messageId;
	ctx.store.changed('conversations', conversation.conversationId);
	emitMessageRead(ctx.webhooks, conversation, target.messageId);
	return target.messageId;
}

/** `POST /_sim/customers/{id}/delete`: the user deletes their account (`410 USER_DELETED` afterwards). */
export function deleteCustomer(ctx: SimContext, customer: Customer): void {
	markUserDeleted(ctx, activeConversation(ctx, customer));
}

/** `GET /_sim/customers/{id}`: the customer's side of the conversation. */
export function customerView(ctx: SimContext, customer: Customer) {
	const conversation = conversationOf(ctx, customer);
	return {
		customerId: customer.customerId,
		companyId: customer.companyId,
		conversationId: customer.conversationId,
		status: conversation.status,
		userDeleted: conversation.userDeleted,
		publicKey: customer.publicKey,
		companyTyping: (conversation.companyTypingUntilMs ?? 0) > ctx.clock.nowMs(),
		sealedForRosterVersion: customer.sealedForRosterVersion,
		rosterRefusal: customer.rosterRefusal,
		createdAt: isoSeconds(customer.createdAtMs),
		deviceChangedAt: customer.deviceChangedAtMs === null ? null : isoSeconds(customer.deviceChangedAtMs)
	};
}

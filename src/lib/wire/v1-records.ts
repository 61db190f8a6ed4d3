/**
 * Records of the service's `/v1` answers (contract 2.7, 2.8, 4; docs/contract-gaps.md §4–§9) and their
 * strict readers. Part of the wire module: import them through `./v1`.
 */
import type { Envelope } from '../crypto/message';
import type { Wrap } from '../crypto/wrap';
import { Reader } from './read';

export const CONVERSATION_STATUSES = ['pending', 'active', 'awaiting_key', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export interface ConversationRecord {
	conversationId: string;
	status: ConversationStatus;
	keyVersion: number | null;
	wrapForCompany: Wrap | null;
	userPublicKey: string | null;
	userDeleted: boolean;
	createdAt: string;
	startedAt: string | null;
	lastMessageAt: string | null;
	closedAt: string | null;
}

export interface Page<T> {
	data: T[];
	nextCursor: string | null;
}

export interface AttachmentRef {
	attachmentId: string;
	/** Ciphertext bytes. */
	size: number;
}

export interface HistoryItem {
	messageId: string;
	conversationId: string;
	seq: number;
	senderType: 'user' | 'company';
	contentType: string;
	encryption: Envelope;
	attachment: AttachmentRef | null;
	createdAt: string;
}

export interface HistoryPage {
	data: HistoryItem[];
	hasMore: boolean;
}

export interface InviteRecord {
	inviteId: string;
	conversationId: string;
	/** Without a fragment; the business appends `#s=…&fp=…` (contract 6.3). */
	inviteUrl: string;
	shortCode: string;
	expiresAt: string;
}

export interface UploadRecord {
	attachmentId: string;
	uploadUrl: string;
	method: 'PUT';
	/** Sent exactly as returned with the PUT (contract 2.7). */
	headers: Record<string, string>;
	expiresIn: number;
}

export interface DownloadRecord {
	downloadUrl: string;
	size: number;
	expiresIn: number;
}

export interface AgentWrap {
	agentKeyId: string;
	rosterVersion: number;
	wrap: Wrap;
}

export interface RosterRecord {
	rosterVersion: number;
	issuedAt: string;
	agents: { agentKeyId: string; publicKey: string }[];
	signature: string;
}

export interface DeliveryRecord {
	deliveryId: string;
	eventId: string;
	eventType: string;
	status: 'pending' | 'succeeded' | 'failed';
	attempts: number;
	lastStatus: number | null;
	lastError: string | null;
	nextAttemptAt: string | null;
	createdAt: string;
	updatedAt: string;
}

export const responseReader = (where: string) => new Reader({ code: 'INVALID_RESPONSE', status: 502 }, where);

export function readConversation(value: unknown, r: Reader): ConversationRecord {
	const o = r.object(value, 'conversation');
	return {
		conversationId: r.id(o.conversationId, 'conversationId'),
		status: r.oneOf(o.status, CONVERSATION_STATUSES, 'status'),
		keyVersion: o.keyVersion === null || o.keyVersion === undefined ? null : r.integer(o.keyVersion, 'keyVersion', 1),
		wrapForCompany: o.wrapForCompany === null || o.wrapForCompany === undefined ? null : r.wrap(o.wrapForCompany, 'wrapForCompany'),
		userPublicKey: o.userPublicKey === null || o.userPublicKey === undefined ? null : r.b64u(o.userPublicKey, 'userPublicKey', 32),
		userDeleted: o.userDeleted === undefined ? false : r.boolean(o.userDeleted, 'userDeleted'),
		createdAt: r.string(o.createdAt, 'createdAt'),
		startedAt: r.optionalString(o.startedAt, 'startedAt'),
		lastMessageAt: r.optionalString(o.lastMessageAt, 'lastMessageAt'),
		closedAt: r.optionalString(o.closedAt, 'closedAt')
	};
}

export function readAttachmentRef(value: unknown, r: Reader): AttachmentRef | null {
	if (value === undefined || value === null) return null;
	const o = r.object(value, 'attachment');
	return { attachmentId: r.string(o.attachmentId, 'attachment.attachmentId'), size: r.integer(o.size, 'attachment.size') };
}

/** The envelope is kept as received: its checks belong to whoever decrypts it (contract 6.2). */
export function readEnvelope(value: unknown, r: Reader, what: string): Envelope {
	return r.object(value, what) as unknown as Envelope;
}

export function readHistoryItem(value: unknown, r: Reader): HistoryItem {
	const o = r.object(value, 'message');
	return {
		messageId: r.id(o.messageId, 'messageId'),
		conversationId: r.id(o.conversationId, 'conversationId'),
		seq: r.integer(o.seq, 'seq', 1),
		senderType: r.oneOf(o.senderType, ['user', 'company'] as const, 'senderType'),
		contentType: r.string(o.contentType, 'contentType'),
		encryption: readEnvelope(o.encryption, r, 'encryption'),
		attachment: readAttachmentRef(o.attachment, r),
		createdAt: r.string(o.createdAt, 'createdAt')
	};
}

export function readInvite(value: unknown, r: Reader): InviteRecord {
	const o = r.object(value, 'invitation');
	const inviteUrl = r.string(o.inviteUrl, 'inviteUrl');
	if (inviteUrl.includes('#')) r.fail('inviteUrl must not carry a fragment');
	return {
		inviteId: r.id(o.inviteId, 'inviteId'),
		conversationId: r.id(o.conversationId, 'conversationId'),
		inviteUrl,
		shortCode: r.string(o.shortCode, 'shortCode'),
		expiresAt: r.string(o.expiresAt, 'expiresAt')
	};
}

export function readAgentWrap(value: unknown, r: Reader): AgentWrap {
	const o = r.object(value, 'agent wrap');
	return {
		agentKeyId: r.string(o.agentKeyId, 'agentKeyId'),
		rosterVersion: r.integer(o.rosterVersion, 'rosterVersion', 1),
		wrap: r.wrap(o.wrap, 'wrap')
	};
}

export function readRoster(value: unknown, r: Reader): RosterRecord {
	const o = r.object(value, 'roster');
	return {
		rosterVersion: r.integer(o.rosterVersion, 'rosterVersion', 1),
		issuedAt: r.string(o.issuedAt, 'issuedAt'),
		agents: r.array(o.agents, 'agents').map((agent) => {
			const a = r.object(agent, 'agent');
			return { agentKeyId: r.string(a.agentKeyId, 'agentKeyId'), publicKey: r.string(a.publicKey, 'publicKey') };
		}),
		signature: r.string(o.signature, 'signature')
	};
}

export function readDelivery(value: unknown, r: Reader): DeliveryRecord {
	const o = r.object(value, 'delivery');
	return {
		deliveryId: r.id(o.deliveryId, 'deliveryId'),
		eventId: r.id(o.eventId, 'eventId'),
		eventType: r.string(o.eventType, 'eventType'),
		status: r.oneOf(o.status, ['pending', 'succeeded', 'failed'] as const, 'status'),
		attempts: r.integer(o.attempts, 'attempts'),
		lastStatus: o.lastStatus === null || o.lastStatus === undefined ? null : r.integer(o.lastStatus, 'lastStatus'),
		lastError: r.optionalString(o.lastError, 'lastError'),
		nextAttemptAt: r.optionalString(o.nextAttemptAt, 'nextAttemptAt'),
		createdAt: r.string(o.createdAt, 'createdAt'),
		updatedAt: r.string(o.updatedAt, 'updatedAt')
	};
}

export function readPage<T>(value: unknown, r: Reader, item: (value: unknown, r: Reader) => T): Page<T> {
	const o = r.object(value, 'page');
	return { data: r.array(o.data, 'data').map((entry) => item(entry, r)), nextCursor: r.optionalString(o.nextCursor, 'nextCursor') };
}

export interface ReadReceipt {
	conversationId: string;
	readUpToMessageId: string;
}

export function readReadReceipt(value: unknown, r: Reader): ReadReceipt {
	const o = r.object(value, 'read receipt');
	return { conversationId: r.id(o.conversationId, 'conversationId'), readUpToMessageId: r.id(o.readUpToMessageId, 'readUpToMessageId') };
}

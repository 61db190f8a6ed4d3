/**
 * Everything the simulated service remembers, in memory: companies and their keys (contract 2.1,
 * 2.3, 6.6), conversations and messages (2.4, 2.5, 3), invitations, attachments (2.7, 2.8),
 * rosters (2.9), webhook deliveries (6), idempotency keys (5.1) and the simulated customers.
 * Plain data, so a snapshot is JSON; the maps are indexes rebuilt on load. Every change names the
 * record it touched, so that persisting writes only those (docs/simulator.md, "Persistence").
 */
import type { Envelope, RosterAgent, Wrap } from '../lib/crypto/index';

export type ConversationStatus = 'pending' | 'active' | 'awaiting_key' | 'closed';
export const CONVERSATION_STATUSES: readonly ConversationStatus[] = ['pending', 'active', 'awaiting_key', 'closed'];

export type SenderType = 'user' | 'company';

export interface CompanyKey {
	keyVersion: number;
	/** b64u X25519 public key. */
	publicKey: string;
	/** The platform's Ed25519 signature of the company key (contract 6.6, last point). */
	platformSignature: string;
	activatedAtMs: number;
}

export interface StoredRoster {
	rosterVersion: number;
	issuedAt: string;
	agents: RosterAgent[];
	signature: string;
	storedAtMs: number;
}

export interface Company {
	companyId: string;
	apiKeyHash: string;
	webhookSecret: string;
	previousWebhookSecret: { secret: string; validUntilMs: number } | null;
	webhookSecretRotatedAtMs: number | null;
	webhookUrl: string;
	/** b64u Ed25519 `signing.pub`. */
	signingPublicKey: string;
	currentKey: CompanyKey;
	/** Newest first. */
	previousKeys: CompanyKey[];
	/** Every roster accepted through `/v1/roster`, oldest first. */
	rosters: StoredRoster[];
	/** A roster served to apps in place of the latest accepted one (control API: a compromised service). */
	servedRosterOverride: StoredRoster | null;
	/** Simulated times of attachment upload creations within the last hour (contract 8). */
	uploadTimesMs: number[];
	createdAtMs: number;
}

export interface Message {
	messageId: string;
	seq: number;
	senderType: SenderType;
	contentType: string;
	encryption: Envelope;
	attachment: { attachmentId: string; size: number } | null;
	createdAtMs: number;
}

export interface StoredAgentWrap {
	agentKeyId: string;
	rosterVersion: number;
	wrap: Wrap;
}

export interface Conversation {
	conversationId: string;
	companyId: string;
	status: ConversationStatus;
	keyVersion: number | null;
	wrapForCompany: Wrap | null;
	wrapForUser: Wrap | null;
	userPublicKey: string | null;
	userDeleted: boolean;
	createdAtMs: number;
	startedAtMs: number | null;
	lastMessageAtMs: number | null;
	closedAtMs: number | null;
	messages: Message[];
	agentWraps: StoredAgentWrap[];
	/** Agent-wrap uploads the service carried out (idempotent replays not counted); absent in older snapshots. */
	agentWrapUploads?: number;
	/** The company read the user's messages up to this one. */
	companyReadUpTo: string | null;
	/** The user read the company's messages up to this one. */
	userReadUpTo: string | null;
	companyTypingUntilMs: number | null;
}

export interface Invite {
	inviteId: string;
	companyId: string;
	conversationId: string;
	isReinvite: boolean;
	shortCode: string;
	createdAtMs: number;
	expiresAtMs: number;
	redeemedAtMs: number | null;
	/** A later re-invitation of the same conversation replaced this one before it was used. */
	supersededAtMs: number | null;
}

export interface Attachment {
	attachmentId: string;
	companyId: string;
	conversationId: string;
	/** Ciphertext bytes. */
	size: number;
	createdBy: SenderType;
	createdAtMs: number;
	uploadedAtMs: number | null;
	usedByMessageId: string | null;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
	attempt: number;
	/** Simulated times. */
	scheduledAtMs: number;
	startedAtMs: number;
	finishedAtMs: number;
	url: string;
	status: number | null;
	error: string | null;
	/** A fault injected through the control API shaped this attempt. */
	injected: 'status' | 'timeout' | 'duplicate' | null;
	/** The second copy's status when the delivery was duplicated. */
	duplicateStatus?: number | null;
	manual: boolean;
}

export interface Delivery {
	deliveryId: string;
	eventId: string;
	eventType: string;
	companyId: string;
	conversationId: string | null;
	/** The exact webhook body, the same bytes on every attempt. */
	body: string;
	status: DeliveryStatus;
	attempts: number;
	lastStatus: number | null;
	lastError: string | null;
	nextAttemptAtMs: number | null;
	/** A retry asked through `/v1`: one attempt, no automatic ones after it. */
	manualRetry: boolean;
	createdAtMs: number;
	updatedAtMs: number;
	attemptLog: AttemptRecord[];
}

export interface Customer {
	customerId: string;
	companyId: string;
	conversationId: string;
	/** The current device's X25519 pair, b64u. */
	publicKey: string;
	secretKey: string;
	createdAtMs: number;
	deviceChangedAtMs: number | null;
	/** Why the app sealed for no agent at redemption, if it refused the roster. */
	rosterRefusal: string | null;
	sealedForRosterVersion: number | null;
}

/** What the simulated app remembers of one business (contract 6.6, 6.7). */
export interface AppMemory {
	/** Pinned at first contact. */
	signingPublicKey: string;
	/** The highest roster version the app has verified. */
	lastSeenRosterVersion: number;
}

export interface IdempotencyEntry {
	requestHash: string;
	status: number;
	headers: Record<string, string>;
	body: string;
	createdAtMs: number;
}

export interface PlatformKeys {
	/** b64u Ed25519 pair of the platform, which signs company keys. */
	publicKey: string;
	secretKey: string;
}

/** The kinds of record the Store keeps by id; `appMemory` is keyed by company. */
export type RecordKind = 'companies' | 'conversations' | 'invites' | 'attachments' | 'deliveries' | 'customers' | 'appMemory';
export const RECORD_KINDS: readonly RecordKind[] = [
	'companies',
	'conversations',
	'invites',
	'attachments',
	'deliveries',
	'customers',
	'appMemory'
];

/** The ids of the records added or changed since the persistence last took them. */
export interface Changes {
	records: Record<RecordKind, Set<string>>;
	/** companyId → the Idempotency-Keys stored or dropped. */
	idempotency: Map<string, Set<string>>;
}

function noChanges(): Changes {
	const records = Object.fromEntries(RECORD_KINDS.map((kind) => [kind, new Set<string>()])) as Record<RecordKind, Set<string>>;
	return { records, idempotency: new Map() };
}

export class Store {
	readonly companies = new Map<string, Company>();
	readonly companyByApiKeyHash = new Map<string, string>();
	readonly conversations = new Map<string, Conversation>();
	readonly invites = new Map<string, Invite>();
	readonly inviteByShortCode = new Map<string, string>();
	readonly attachments = new Map<string, Attachment>();
	/** Uploaded ciphertexts by attachment id (the simulated object storage). */
	readonly objects = new Map<string, Uint8Array>();
	readonly deliveries = new Map<string, Delivery>();
	readonly customers = new Map<string, Customer>();
	readonly appMemory = new Map<string, AppMemory>();
	/** companyId → Idempotency-Key → stored response. */
	readonly idempotency = new Map<string, Map<string, IdempotencyEntry>>();
	private changes = noChanges();
	/** Null while nothing persists the state: no change is noted then, so none piles up. */
	private changeListener: (() => void) | null = null;

	constructor(
		readonly platform: PlatformKeys,
		/** Key of the presigned storage URLs (b64u). */
		readonly storageSecret: string
	) {}

	/** Calls `listener` after every change (the persistence schedules a write). */
	onChange(listener: () => void): void {
		this.changeListener = listener;
	}

	/** Notes that the record `id` of `kind` was added or changed in place. */
	changed(kind: RecordKind, id: string): void {
		if (!this.changeListener) return;
		this.changes.records[kind].add(id);
		this.changeListener();
	}

	/** The changes since the last call, which the caller now owns. */
	takeChanges(): Changes {
		const taken = this.changes;
		this.changes = noChanges();
		return taken;
	}

	addCompany(company: Company): void {
		this.companies.set(company.companyId, company);
		this.companyByApiKeyHash.set(company.apiKeyHash, company.companyId);
		this.changed('companies', company.companyId);
	}

	addInvite(invite: Invite): void {
		this.invites.set(invite.inviteId, invite);
		this.inviteByShortCode.set(invite.shortCode, invite.inviteId);
		this.changed('invites', invite.inviteId);
	}

	addConversation(conversation: Conversation): void {
		this.conversations.set(conversation.conversationId, conversation);
		this.changed('conversations', conversation.conversationId);
	}

	addAttachment(attachment: Attachment): void {
		this.attachments.set(attachment.attachmentId, attachment);
		this.changed('attachments', attachment.attachmentId);
	}

	addDelivery(delivery: Delivery): void {
		this.deliveries.set(delivery.deliveryId, delivery);
		this.changed('deliveries', delivery.deliveryId);
	}

	addCustomer(customer: Customer): void {
		this.customers.set(customer.customerId, customer);
		this.changed('customers', customer.customerId);
	}

	setAppMemory(companyId: string, memory: AppMemory): void {
		this.appMemory.set(companyId, memory);
		this.changed('appMemory', companyId);
	}

	/** Read-only: store and drop idempotency entries through `storeIdempotency` and `dropIdempotency`. */
	idempotencyOf(companyId: string): ReadonlyMap<string, IdempotencyEntry> {
		return this.idempotency.get(companyId) ?? new Map();
	}

	storeIdempotency(companyId: string, key: string, entry: IdempotencyEntry): void {
		let entries = this.idempotency.get(companyId);
		if (!entries) this.idempotency.set(companyId, (entries = new Map()));
		entries.set(key, entry);
		this.idempotencyChanged(companyId, key);
	}

	dropIdempotency(companyId: string, key: string): void {
		const entries = this.idempotency.get(companyId);
		if (!entries?.delete(key)) return;
		if (entries.size === 0) this.idempotency.delete(companyId);
		this.idempotencyChanged(companyId, key);
	}

	private idempotencyChanged(companyId: string, key: string): void {
		if (!this.changeListener) return;
		let keys = this.changes.idempotency.get(companyId);
		if (!keys) this.changes.idempotency.set(companyId, (keys = new Set()));
		keys.add(key);
		this.changeListener();
	}

	conversationsOf(companyId: string): Conversation[] {
		return [...this.conversations.values()].filter((conversation) => conversation.companyId === companyId);
	}

	deliveriesOf(companyId: string): Delivery[] {
		return [...this.deliveries.values()].filter((delivery) => delivery.companyId === companyId);
	}
}

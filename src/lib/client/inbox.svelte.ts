/**
 * The signed-in inbox: the conversation list, the live connection that
 * keeps it current, the thread on screen, previews of new messages and customers' names decrypted in
 * the worker, who sent each reply, the team's names, labels and canned replies, where notes mentioned
 * this agent, and message search.
 * Created when the key is unlocked and stopped on sign-out. A lock forgets every plaintext but keeps
 * the list and the live connection (docs/crypto-worker.md "Unlock once per browser session"): ids,
 * times and unread counts keep arriving, and the next unlock decrypts again.
 */
import pMap from 'p-map';
import { getContext, setContext } from 'svelte';
import type { CryptoWorkerClient } from '../crypto-worker/client';
import { v1 } from '../wire/v1';
import { fail } from '../errors';
import {
	getCompanyKey,
	getConversation,
	getServiceTargets,
	getSession,
	getTeam,
	listCannedReplies,
	listLabels,
	listEveryConversation,
	listTeams,
	setAvailability
} from './api';
import { targetPolicy } from '../service-targets/targets';
import { ConversationStore } from './conversations.svelte';
import { LiveEvents } from './events.svelte';
import { explainMessageProblem } from './explain';
import { authorLabel, MessageAuthors, previewWithAuthor } from './message-authors';
import { parseProfileText } from './profile';
import { v1Call } from './proxy';
import { ThreadStore } from './thread.svelte';
import type { ConversationView, StoredMessage, TeamMember } from './types';
import type { CannedReply, Label, MentionEvent, Team } from '../inbox-api/records';
import { conversationAlert, mentionAlert, messageAlert, type Alert } from './notifications';
import { MentionStore } from './mention-store.svelte';
import type { DraftStorage } from './drafts';
import { Outbox } from './outbox';
import { sendPending } from './thread-sender';
import { toWorkerItem } from './thread-messages';
import { MessageSearch } from './search.svelte';

const CONTEXT = Symbol('inbox');
const PREFETCHED_PREVIEWS = 30;
/** How many of those preview requests run at once. */
const PREVIEW_REQUESTS_AT_ONCE = 3;

export class InboxState {
	/** Where notes mentioned this agent (docs/inbox-api.md §4 "Mentions"). */
	readonly mentions = new MentionStore();
	readonly conversations: ConversationStore;
	/** The team's canned replies and this agent's own (docs/inbox-api.md §4 "Canned replies"). */
	cannedReplies = $state.raw<CannedReply[]>([]);
	/** The team's labels (docs/inbox-api.md §4 "Labels"). */
	labels = $state.raw<Label[]>([]);
	/** The company's teams of agents (docs/inbox-api.md §4 "Teams"). */
	teams = $state.raw<Team[]>([]);
	/** The team's names, for the assignment pickers and the admins' view by agent. */
	team = $state.raw<TeamMember[]>([]);
	/** The account is an admin or an agent of the latest roster (at start, and again at each resync). */
	private rosterAgent = false;
	readonly live: LiveEvents;
	readonly authors = new MessageAuthors();
	/** Full-text search over what this agent decrypted (docs/search.md); a new one at each unlock. */
	search: MessageSearch;
	/** The thread on screen, which receives its conversation's events. */
	thread: ThreadStore | null = null;
	/** The company key fingerprint the customers' apps check (contract 2.2, 6.3), for the trust badges. */
	companyFingerprint = $state<string | null>(null);
	/** Hears of new conversations and customer messages in Mine and Unassigned that are not on screen. */
	onAlert: ((alert: Alert) => void) | null = null;
	private stopped = false;
	private readonly outbox: Outbox;

	/** The agent key's handle in `crypto`; null while the key is locked. */
	private agentKeyHandle: string | null;

	constructor(
		private crypto: CryptoWorkerClient,
		agentKeyHandle: string,
		private readonly accountId: string
	) {
		this.agentKeyHandle = agentKeyHandle;
		this.conversations = new ConversationStore(accountId, () => this.mentions.conversationIds);
		this.outbox = new Outbox(accountId);
		this.search = $state.raw(new MessageSearch(crypto, agentKeyHandle));
		this.live = new LiveEvents({
			conversation: (conversation) => this.conversationChanged(conversation),
			message: (conversationId, message) => void this.messageArrived(conversationId, message),
			labels: () => this.loadLabels(),
			teams: () => this.loadTeams(),
			targets: () => this.loadServiceTargets(),
			team: () => this.loadTeam(),
			presence: (event) => {
				if (this.thread?.conversationId === event.conversationId) this.thread.presenceSeen(event);
			},
			note: (conversationId, note) => {
				if (this.thread?.conversationId === conversationId) void this.thread.receiveNote(note).catch(() => undefined);
			},
			mention: (event) => this.mentionArrived(event),
			mentionRead: (conversationId) => this.mentions.readElsewhere(conversationId),
			read: (conversationId, upTo) => {
				if (this.thread?.conversationId === conversationId) this.thread.customerRead(upTo);
			},
			// the server says what this account may read changed (a roster granted it conversations): the team's
			// labels and canned replies, refused to an account outside the roster, are read again with the list
			resync: () => {
				void this.conversations.load().then(() => this.threadTakesListView());
				this.loadLabels();
				this.loadTeams();
				this.loadServiceTargets();
				this.loadCannedReplies();
				this.loadTeam();
				void getSession()
					.then((session) => {
						this.rosterAgent = session.rosterAgent;
						if (this.#locked !== null) this.sayLocked(this.#locked);
					})
					.catch(() => undefined);
				this.loadMentions();
				void this.thread?.catchUp().catch(() => undefined);
				void this.thread?.loadNotes();
			},
			ready: () => void this.thread?.catchUp().catch(() => undefined)
		});
	}

	/**
	 * Loads the list, and opens the live stream from the event its first page reflects, so a change made
	 * between the two is replayed, not lost (without a list, the stream starts from now).
	 */
	start({ rosterAgent }: { rosterAgent: boolean }): void {
		this.rosterAgent = rosterAgent;
		if (this.#locked !== null) this.sayLocked(this.#locked);
		let liveStarted = false;
		const startLive = (afterEventId?: number) => {
			if (liveStarted || this.stopped) return;
			liveStarted = true;
			this.live.start(afterEventId);
		};
		void this.conversations
			.load(startLive)
			.finally(() => startLive())
			.then(() => this.prefetchPreviews())
			.then(() => this.indexHistory())
			.catch(() => undefined);
		this.loadTeam();
		this.loadMentions();
		// the team's labels and canned replies are for the roster's agents: another account waits for the resync
		// that comes when a roster takes its key in, rather than being refused now
		if (rosterAgent) {
			this.loadLabels();
			this.loadTeams();
			this.loadServiceTargets();
			this.loadCannedReplies();
		}
		void this.crypto
			.draftConversations()
			.then((ids) => this.conversations.draftsAre(ids))
			.catch(() => undefined);
		void getCompanyKey()
			.then((key) => (this.companyFingerprint = key.fingerprint))
			.catch(() => undefined);
	}

	/** Where the thread's drafts are kept: the key store, with the list's marker following each write. */
	readonly draftStorage: DraftStorage = {
		loadDraft: (conversationId) => this.crypto.loadDraft(conversationId),
		saveDraft: async (conversationId, draft) => {
			await this.crypto.saveDraft(conversationId, draft);
			this.conversations.draftChanged(conversationId, draft.text.trim() !== '');
		}
	};

	/** The team's names and availability (at start, and when someone's availability changes). */
	private loadTeam(): void {
		void getTeam()
			.then(({ data }) => (this.team = data))
			.catch(() => undefined);
	}

	/** Whether the key is locked in this tab, and this tab's last word on it, so that each change is said once. */
	#locked: boolean | null = null;
	#lockedSaid: boolean | null = null;

	/**
	 * An agent whose key is locked (idle, or by Lock) is away until they unlock (§4 "Availability"). Only
	 * the roster's agents have one (the server refuses others, who get no work): said once a roster takes
	 * the account in.
	 */
	private sayLocked(locked: boolean): void {
		this.#locked = locked;
		if (!this.rosterAgent || this.#lockedSaid === locked) return;
		this.#lockedSaid = locked;
		void setAvailability({ idle: locked }).catch(() => (this.#lockedSaid = null));
	}

	/** The agent says they are away, or back (§4 "Availability"). */
	async setAway(away: boolean): Promise<void> {
		await setAvailability({ away });
		this.loadTeam();
	}

	/** Reads this agent's mentions; the conversation on screen was opened after them, so its mentions are read. */
	private loadMentions(): void {
		void this.mentions
			.load()
			.then(() => this.thread && this.mentions.open(this.thread.conversationId))
			.catch(() => undefined);
	}

	/** A note mentioned this agent: read at once when its conversation is on screen, else told as the agent chose. */
	private mentionArrived(event: MentionEvent): void {
		this.mentions.mentioned(event);
		if (this.thread?.conversationId === event.conversationId && document.visibilityState === 'visible') {
			void this.mentions.open(event.conversationId).catch(() => undefined);
			return;
		}
		this.raise(mentionAlert(event));
	}

	private loadLabels(): void {
		void listLabels()
			.then(({ data }) => (this.labels = data))
			.catch(() => undefined);
	}

	private loadTeams(): void {
		void listTeams()
			.then(({ data }) => (this.teams = data))
			.catch(() => undefined);
	}

	/** The team's service targets, for each row's deadline (at start, and when an admin changes them). */
	private loadServiceTargets(): void {
		void getServiceTargets()
			.then(({ businessHours, serviceTargets }) => (this.conversations.policy = targetPolicy(serviceTargets, businessHours)))
			.catch(() => undefined);
	}

	/** Reads the canned replies again (at start, and after the agent changed them). */
	loadCannedReplies(): void {
		void listCannedReplies()
			.then(({ data }) => (this.cannedReplies = data))
			.catch(() => undefined);
	}

	/** The key was locked: every plaintext goes; the list and the live connection stay. */
	locked(): void {
		this.sayLocked(true);
		this.agentKeyHandle = null;
		this.search.stop();
		this.closeThread(this.thread);
		this.conversations.forgetPlaintext();
		this.authors.clear();
		this.namedVersions = {};
	}

	/** The key was unlocked again (its handle in `crypto`): previews, names and the search index come back. */
	unlocked(crypto: CryptoWorkerClient, agentKeyHandle: string): void {
		this.sayLocked(false);
		if (this.stopped || agentKeyHandle === this.agentKeyHandle) return;
		this.crypto = crypto;
		this.agentKeyHandle = agentKeyHandle;
		this.search = new MessageSearch(crypto, agentKeyHandle);
		void this.prefetchPreviews()
			.then(() => this.indexHistory())
			.catch(() => undefined);
	}

	/** The search index's history pass over every conversation of the inbox, not only the rows the list loaded. */
	private async indexHistory(): Promise<void> {
		const search = this.search;
		await search.indexHistory(await listEveryConversation());
	}

	stop(): void {
		this.stopped = true;
		this.search.stop();
		this.live.stop();
		this.closeThread(this.thread);
		this.conversations.clear();
		this.mentions.clear();
		this.authors.clear();
		this.namedVersions = {};
	}

	/**
	 * Opens a conversation on screen: its record from the list (else the server), a thread that gets the
	 * conversation's live events and tells the list about previews and reads. The thread opens its key
	 * and newest page by itself (its `keyState` says how far it got).
	 */
	async openThread(conversationId: string): Promise<ThreadStore> {
		const agentKeyHandle = this.agentKeyHandle ?? fail('LOCKED', 'the key is locked: unlock it to read');
		const conversation = this.conversations.get(conversationId) ?? (await getConversation(conversationId));
		const thread = new ThreadStore(conversation, {
			crypto: this.crypto,
			agentKeyHandle,
			accountId: this.accountId,
			authors: this.authors,
			onPreview: (id, text) => this.conversations.setPreview(id, text),
			onName: (id, name) => this.conversations.setName(id, name),
			onRead: (id) => this.conversations.markRead(id)
		});
		this.closeThread(this.thread);
		this.thread = thread;
		void thread.open();
		void this.mentions.open(conversationId).catch(() => undefined);
		return thread;
	}

	/** The page left the thread: it gets no more events and forgets its plaintext. */
	closeThread(thread: ThreadStore | null): void {
		if (!thread) return;
		if (this.thread === thread) this.thread = null;
		thread.dispose();
	}

	/**
	 * The newest message of the most recent conversations, decrypted for their rows (a few requests once,
	 * as Chatwoot shows the last message); conversations further down get theirs when opened or written to.
	 */
	private async prefetchPreviews(count = PREFETCHED_PREVIEWS): Promise<void> {
		const withKeys = this.conversations.items.filter((item) => item.agentWraps.length > 0 && item.status !== 'pending');
		await pMap(
			withKeys.filter((item) => item.profile),
			(item) => this.learnName(item).catch(() => undefined),
			{
				concurrency: PREVIEW_REQUESTS_AT_ONCE
			}
		);
		const wanted = withKeys.filter((item) => !this.conversations.previews.has(item.conversationId)).slice(0, count);
		await pMap(
			wanted,
			async ({ conversationId }) => {
				if (this.stopped) return;
				try {
					const page = await v1Call(v1.listMessages(conversationId, { limit: 1 }));
					const newest = page.data.at(-1);
					if (newest && !this.conversations.previews.has(conversationId)) await this.preview(conversationId, newest);
				} catch {
					// a preview is a nicety: the row keeps its placeholder
				}
			},
			{ concurrency: PREVIEW_REQUESTS_AT_ONCE }
		);
	}

	/** The thread on screen takes the list's view of its conversation, e.g. wraps a grant sealed for this agent. */
	private threadTakesListView(): void {
		const view = this.thread && this.conversations.get(this.thread.conversationId);
		if (view) this.thread?.update(view);
	}

	private conversationChanged(conversation: ConversationView): void {
		this.raise(conversationAlert(this.conversations.get(conversation.conversationId), conversation, this.accountId));
		this.conversations.upsert(conversation);
		void this.learnName(conversation).catch(() => undefined);
		if (this.thread?.conversationId === conversation.conversationId) this.thread.update(conversation);
	}

	private async messageArrived(conversationId: string, message: StoredMessage): Promise<void> {
		this.raise(messageAlert(this.conversations.get(conversationId), message, this.accountId));
		if (this.thread?.conversationId === conversationId) {
			await this.thread.receive(message).catch(() => undefined);
			return;
		}
		await this.preview(conversationId, message).catch(() => undefined);
	}

	/**
	 * The connection came back (docs/inbox-api.md §11 "Connection and outbox"): the thread on screen
	 * sends what waited, and replies that waited in other conversations are sent with their keys.
	 */
	connectionReturned(): void {
		if (this.stopped) return;
		this.thread?.connectionReturned();
		void this.sendWaitingElsewhere();
	}

	private async sendWaitingElsewhere(): Promise<void> {
		for (const entry of this.outbox.list()) {
			if (this.stopped || entry.conversationId === this.thread?.conversationId) continue;
			try {
				await sendPending(entry);
				this.outbox.remove(entry.localId);
			} catch {
				// it stays in the outbox: its thread shows it and tries again when opened
			}
		}
	}

	/** Passes an alert on, unless its conversation is on screen in a visible tab. */
	private raise(alert: Alert | null): void {
		if (!alert || this.stopped) return;
		if (this.thread?.conversationId === alert.conversationId && document.visibilityState === 'visible') return;
		this.onAlert?.(alert);
	}

	/** The profile versions whose names this tab decrypted, by conversation. */
	private namedVersions: Record<string, number> = {};

	/** Decrypts the customer's name from the conversation's profile, for its row. */
	private async learnName(conversation: ConversationView): Promise<void> {
		const { conversationId, profile, agentWraps } = conversation;
		const handle = this.agentKeyHandle;
		if (!handle || !profile || agentWraps.length === 0 || this.namedVersions[conversationId] === profile.version) return;
		this.namedVersions[conversationId] = profile.version;
		const [opened] = await this.crypto.openConversationKeys(handle, [{ conversationId, wrap: agentWraps[agentWraps.length - 1].wrap }]);
		if (!opened?.ok) return;
		const [outcome] = await this.crypto.decryptPrivateRecords(conversationId, 'profile', [
			{ authorId: profile.authorId, envelope: profile.envelope }
		]);
		const name = outcome?.ok ? parseProfileText(outcome.text).name : '';
		if (name && this.stillUnlocked(handle)) this.conversations.setName(conversationId, name);
	}

	/** Decrypts one new message of a conversation not on screen, for its row's preview. */
	private async preview(conversationId: string, message: StoredMessage): Promise<void> {
		if (message.contentType !== 'text' && message.contentType !== 'attachment') return;
		const wraps = this.conversations.get(conversationId)?.agentWraps ?? [];
		const handle = this.agentKeyHandle;
		if (!handle || wraps.length === 0) return;
		const [opened] = await this.crypto.openConversationKeys(handle, [{ conversationId, wrap: wraps[wraps.length - 1].wrap }]);
		if (!opened?.ok) return;
		const [result] = await this.crypto.decryptHistory(conversationId, [toWorkerItem(message)]);
		if (!result) return;
		const text = !result.ok
			? `Cannot be shown: ${explainMessageProblem(result.code)}`
			: result.attachment
				? `File: ${result.attachment.name}`
				: result.text;
		const [author] =
			message.senderType === 'company'
				? await this.authors.lookUp([{ conversationId, clientMessageId: message.encryption.clientMessageId }]).catch(() => [])
				: [];
		if (!this.stillUnlocked(handle)) return;
		this.conversations.setPreview(conversationId, previewWithAuthor(text, message.senderType, authorLabel(author, this.accountId)));
	}

	/** Whether the key that decrypted something is still the unlocked one: a text decrypted before a lock is dropped. */
	private stillUnlocked(handle: string): boolean {
		return !this.stopped && this.agentKeyHandle === handle;
	}
}

export function provideInbox(inbox: InboxState): void {
	setContext(CONTEXT, inbox);
}

export function useInbox(): InboxState {
	return getContext<InboxState>(CONTEXT);
}

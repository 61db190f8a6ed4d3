/**
 * One open conversation: its key opened in the worker from the agent's wrap, the
 * history paged with `before`/`after` through the proxy and decrypted a page per worker call, live
 * messages and who sent them, the team's private notes and the customer's profile (docs/private-records.md),
 * who else is here, the read receipt, typing and closing. A reply is sent in its order — asking first
 * when another agent replied meanwhile, then the text, then the tray's files in the tray's order
 * (docs/inbox-api.md §11 "Attachments") — through the sender (thread-sender.ts), which is given only what
 * it needs of the thread.
 */
import { ContractError } from '../errors';
import type { CryptoWorkerClient } from '../crypto-worker/client';
import { v1 } from '../wire/v1';
import { composerBlockedReason, composerWarning, type KeyState } from './composer-state';
import { explainError, explainMessageProblem } from './explain';
import { authorLabel, NO_AUTHORS, previewWithAuthor, withAuthors, type MessageAuthor, type MessageAuthors } from './message-authors';
import { newIdempotencyKey } from './http';
import { v1Call } from './proxy';
import { itemsToDecrypt, mergeMessages, shownMessageIds, toThreadMessage, toWorkerItem, type ThreadMessage } from './thread-messages';
import { ThreadSender } from './thread-sender';
import { Outbox } from './outbox';
import { filesToSend, stageFiles, type StagedFile } from './staging';
import { Throttle } from './throttle';
import { addNote, listNotes, listReaders, postPresence, saveProfile } from './api';
import { mentionedIds } from './mentions';
import { browserNow, typingEnded, withPresence, type PresenceEvent } from './presence';
import { parseProfileText, profileText, type ProfileFields } from './profile';
import { mergeNotes, toThreadNote, type ThreadNote } from './thread-notes';
import type { ConversationNote } from '../inbox-api/records';
import type { PrivateEnvelope, PrivateRecordKind } from '../crypto/private-record';
import type { ConversationView, StoredMessage, TeamMember } from './types';

const PAGE_SIZE = 50;
/** The most messages a page of history holds (docs/contract-gaps.md, the messages' `limit`). */
const LARGEST_PAGE = 200;
const TYPING_INTERVAL_MS = 4000;
/** How often an open thread tells the other agents it is viewed. */
const VIEWING_INTERVAL_MS = 10_000;

/** A page of messages on screen; `named` settles once their senders are named. */
interface ShownPage {
	named: Promise<void>;
}

/** The worker calls a thread makes (the page's CryptoWorkerClient). */
export type ThreadCrypto = Pick<
	CryptoWorkerClient,
	| 'openConversationKey'
	| 'decryptHistory'
	| 'encryptReply'
	| 'encryptAttachment'
	| 'encryptAttachmentMessage'
	| 'encryptPrivateRecord'
	| 'decryptPrivateRecords'
>;

/** The customer's profile as the thread shows it; `problem` is the code when it could not be decrypted. */
export interface DecryptedProfile extends ProfileFields {
	version: number;
	authorName: string;
	updatedAt: string;
	problem: string | null;
}

export interface ThreadContext {
	crypto: ThreadCrypto;
	agentKeyHandle: string;
	accountId: string;
	/** Who sent the company's messages, shared with the list's previews. */
	authors: Pick<MessageAuthors, 'lookUp'>;
	/** Tells the list about a decrypted preview, the customer's name and a read receipt. */
	onPreview(conversationId: string, text: string): void;
	onName?(conversationId: string, name: string): void;
	onRead(conversationId: string): void;
}

export class ThreadStore {
	#conversation = $state.raw<ConversationView>() as ConversationView;
	#keyState = $state<KeyState>('opening');
	#keyError = $state<string | null>(null);
	#messages = $state.raw<ThreadMessage[]>([]);
	#loadingOlder = $state(false);
	#hasOlder = $state(false);
	#loadError = $state<string | null>(null);
	#customerReadUpTo = $state<string | null>(null);
	#notes = $state.raw<ThreadNote[]>([]);
	/** Who can read this conversation, but this agent: whom a note may mention (docs/inbox-api.md §4 "Mentions"). */
	#mentionable = $state.raw<TeamMember[]>([]);
	#profile = $state.raw<DecryptedProfile | null>(null);
	#presence = $state.raw<PresenceEvent[]>([]);
	/** Who else replied since this thread was opened (sending asks first), or null. */
	#othersReplied = $state<string | null>(null);
	/** A send waiting for the agent's answer: another agent replied meanwhile. */
	#collision = $state.raw<{ name: string; answer: (send: boolean) => void } | null>(null);
	/** Files picked or dropped, in the order they will be sent. */
	#staged = $state.raw<StagedFile[]>([]);
	#trayError = $state<string | null>(null);
	#viewingTimer: ReturnType<typeof setInterval> | undefined;
	/** The private notes of the conversation, decrypted here, by time. */
	readonly notes: readonly ThreadNote[] = $derived(this.#notes);
	/** Whom a note here may mention: the conversation's readers but this agent, by name. */
	readonly mentionable: readonly TeamMember[] = $derived(this.#mentionable);
	/** The customer's profile, decrypted here (null before anyone wrote one, or while it cannot be read). */
	readonly profile: DecryptedProfile | null = $derived(this.#profile);
	/** What the other agents said of this conversation lately (viewing, typing, left). */
	readonly presence: readonly PresenceEvent[] = $derived(this.#presence);
	/** The authors of the company's messages loaded here, by clientMessageId. */
	#authors = $state.raw<ReadonlyMap<string, MessageAuthor>>(NO_AUTHORS);
	/** Why the composer is closed (the key is not open here), or null when the agent can write. */
	readonly composerBlockedReason = $derived.by(() => composerBlockedReason(this.#keyState, this.#conversation));
	/** What the agent should know before writing (pending, awaiting key, untrusted, deleted customer). */
	readonly composerWarning = $derived.by(() => composerWarning(this.#keyState, this.#conversation));
	/** The version of the key opened in the worker (contract 4.2: replies use it). */
	#keyVersion: number | null = null;
	private readonly sender: ThreadSender;
	private readonly typing = new Throttle(TYPING_INTERVAL_MS);
	private lastReadSent: string | null = null;
	private disposed = false;
	/** The opening under way or done (open()). */
	private opened: Promise<void> = Promise.resolve();
	/** Settles once the newest page is shown (or failed to load), before its senders are named and pending sends restored. */
	private newestShown: Promise<void> = Promise.resolve();
	/** Settles when the message opened from search is shown (or could not be). */
	private revealing: Promise<void> = Promise.resolve();

	constructor(
		conversation: ConversationView,
		private readonly context: ThreadContext
	) {
		this.#conversation = conversation;
		this.sender = new ThreadSender(
			{
				conversationId: conversation.conversationId,
				crypto: context.crypto,
				messages: () => this.#messages,
				show: (change) => (this.#messages = change(this.#messages)),
				keyVersion: () => this.requireOpenKey(),
				delivered: (clientMessageId, shown) => this.delivered(clientMessageId, shown)
			},
			new Outbox(context.accountId)
		);
	}

	get conversation(): ConversationView {
		return this.#conversation;
	}

	get conversationId(): string {
		return this.#conversation.conversationId;
	}

	get keyState(): KeyState {
		return this.#keyState;
	}

	/** Why the key could not be opened, for the page. */
	get keyError(): string | null {
		return this.#keyError;
	}

	/** The loaded history and the sends of this page, in order. */
	get messages(): readonly ThreadMessage[] {
		return this.#messages;
	}

	get loadingOlder(): boolean {
		return this.#loadingOlder;
	}

	/** The service has messages older than the loaded ones. */
	get hasOlder(): boolean {
		return this.#hasOlder;
	}

	get loadError(): string | null {
		return this.#loadError;
	}

	/** Another agent's presence (from `/api/events`). */
	presenceSeen(event: PresenceEvent): void {
		// timed by this browser's clock, which the expiry compares with (the server's may differ)
		if (event.accountId !== this.context.accountId) this.#presence = withPresence(this.#presence, { ...event, at: browserNow() });
	}

	/** Says this agent views the conversation, now and every few seconds until the thread is closed. */
	private announceViewing(): void {
		if (this.#viewingTimer || this.disposed) return;
		const announce = () => void postPresence(this.conversationId, 'viewing').catch(() => undefined);
		announce();
		this.#viewingTimer = setInterval(announce, VIEWING_INTERVAL_MS);
	}

	/** Why a note cannot be written here (the key is not open in this browser), or null. */
	get noteBlockedReason(): string | null {
		return this.#keyState === 'open' ? null : 'Notes are encrypted with the conversation key, which is not open in this browser.';
	}

	/** Who sent a company message, for its bubble: "You" for this agent's sends, stored or not yet. */
	authorOf(message: ThreadMessage): string | null {
		if (message.senderType !== 'company') return null;
		if (!message.messageId) return 'You';
		return authorLabel(message.clientMessageId ? this.#authors.get(message.clientMessageId) : undefined, this.context.accountId);
	}

	/** The customer read the company's messages up to this one (message.read events). */
	get customerReadUpTo(): string | null {
		return this.#customerReadUpTo;
	}

	/** The conversation record changed (an event or a call). */
	update(conversation: ConversationView): void {
		const hadNoWrap = this.#conversation.agentWraps.length === 0;
		this.#conversation = conversation;
		if (hadNoWrap && conversation.agentWraps.length > 0 && this.#keyState !== 'open') void this.open();
		else if (conversation.profile?.version !== this.#profile?.version) void this.readProfile();
	}

	/** Decrypts the conversation's profile when it is newer than the one shown. */
	private async readProfile(): Promise<void> {
		const stored = this.#conversation.profile;
		if (!stored || this.#keyState !== 'open' || stored.version === this.#profile?.version) return;
		const [outcome] = await this.context.crypto.decryptPrivateRecords(this.conversationId, 'profile', [
			{ authorId: stored.authorId, envelope: stored.envelope }
		]);
		if (this.disposed || this.#conversation.profile?.version !== stored.version) return;
		this.#profile = {
			...(outcome.ok ? parseProfileText(outcome.text) : { name: '', notes: '' }),
			version: stored.version,
			authorName: stored.authorName,
			updatedAt: stored.updatedAt,
			problem: outcome.ok ? null : outcome.code
		};
		if (outcome.ok && this.#profile.name) this.context.onName?.(this.conversationId, this.#profile.name);
	}

	/** Encrypts the profile in the worker and saves it over the version shown; `STATE_CONFLICT` when someone saved meanwhile. */
	async saveProfile(fields: ProfileFields): Promise<ConversationView> {
		const envelope = await this.encryptRecord('profile', profileText(fields));
		const updated = await saveProfile(this.conversationId, envelope, this.#conversation.profile?.version ?? 0);
		this.update(updated);
		return updated;
	}

	/** Opens K from the agent's wraps, loads the newest page and the sends still pending. */
	open(): Promise<void> {
		let newestShown!: () => void;
		this.newestShown = new Promise<void>((resolve) => (newestShown = resolve));
		this.opened = this.openNow(newestShown).finally(newestShown);
		return this.opened;
	}

	/**
	 * Shows a message found by search (docs/search.md): once the thread is open, older pages load until
	 * it is there (or the start of the conversation); false when it is not in this conversation.
	 */
	reveal(messageId: string, maxPages = 100): Promise<boolean> {
		const revealing = this.revealNow(messageId, maxPages);
		this.revealing = revealing.then(
			() => undefined,
			() => undefined
		);
		return revealing;
	}

	private async revealNow(messageId: string, maxPages: number): Promise<boolean> {
		// what the jump waits for is the pages on the way to the message: the notes, the readers, the
		// profile and the presence are asked for once it is shown (openNow), naming senders and restoring
		// pending sends go on beside it
		await this.newestShown;
		for (
			let pages = 0;
			pages < maxPages && !this.#messages.some((m) => m.messageId === messageId) && this.#hasOlder && !this.disposed;
			pages++
		) {
			// the largest pages the service gives: a message a few hundred back is one round trip away
			if (!(await this.showOlder(LARGEST_PAGE))) break;
		}
		return this.#messages.some((m) => m.messageId === messageId);
	}

	private async openNow(newestShown: () => void): Promise<void> {
		this.#keyState = 'opening';
		this.#keyError = null;
		const wraps = [...this.#conversation.agentWraps].sort((a, b) => b.rosterVersion - a.rosterVersion);
		if (wraps.length === 0) {
			// pending (nobody joined yet) or not granted to this agent: the page says which
			this.#keyState = 'no-access';
			return;
		}
		// the newest page travels while the worker opens the key (read below, or dropped when the key fails)
		const newestPage = v1Call(v1.listMessages(this.conversationId, { limit: PAGE_SIZE }));
		newestPage.catch(() => undefined);
		let lastError: unknown = null;
		for (const { wrap } of wraps) {
			try {
				const opened = await this.context.crypto.openConversationKey(this.context.agentKeyHandle, this.conversationId, wrap);
				this.#keyVersion = opened.keyVersion;
				lastError = null;
				break;
			} catch (error) {
				lastError = error;
			}
		}
		if (lastError) {
			this.#keyState = 'failed';
			this.#keyError = `${explainError(lastError)}${lastError instanceof ContractError ? ` (${lastError.code})` : ''}`;
			return;
		}
		this.#keyState = 'open';
		const newest = this.showNewest(newestPage).then((page) => {
			newestShown();
			return page?.named;
		});
		// a message opened from search has the server to itself until it is shown
		await newest.then(() => this.revealing);
		this.announceViewing();
		await Promise.all([newest, this.loadNotes(), this.readProfile(), this.loadReaders()]);
		await this.sender.restorePending();
	}

	private async decrypt(items: readonly StoredMessage[]): Promise<ThreadMessage[]> {
		const wanted = itemsToDecrypt(items, shownMessageIds(this.#messages));
		if (wanted.length === 0) return [];
		const results = await this.context.crypto.decryptHistory(this.conversationId, wanted.map(toWorkerItem));
		return wanted.map((item, index) => toThreadMessage(item, results[index], explainMessageProblem));
	}

	/**
	 * Shows decrypted messages at once; what it returns settles when their senders are named and the
	 * list's preview updated. `sinceOpened`: they arrived after the thread was opened (live, or caught
	 * up), so another agent's is a new reply.
	 */
	private show(decrypted: ThreadMessage[], sinceOpened = false): Promise<void> {
		if (this.disposed || decrypted.length === 0) return Promise.resolve();
		this.#messages = mergeMessages(this.#messages, decrypted);
		// a send confirmed by the history or a live event needs no retry any more
		this.sender.confirmStored(decrypted);
		const newest = [...decrypted].reverse().find((m) => m.text !== undefined || m.attachment);
		return this.learnAuthors(decrypted, sinceOpened).then(() => {
			if (newest && !this.disposed) this.preview(newest);
		});
	}

	/** Looks up who sent the company's messages among these (a failed lookup leaves them unnamed). */
	private async learnAuthors(messages: readonly ThreadMessage[], sinceOpened: boolean): Promise<void> {
		const wanted = messages.flatMap((m) =>
			m.senderType === 'company' && m.clientMessageId && !this.#authors.has(m.clientMessageId)
				? [{ conversationId: this.conversationId, clientMessageId: m.clientMessageId }]
				: []
		);
		if (wanted.length === 0) return;
		const found = await this.context.authors.lookUp(wanted).catch(() => []);
		if (this.disposed || found.length === 0) return;
		this.#authors = withAuthors(this.#authors, found);
		const otherReply = messages.findLast((m) => {
			const author = m.clientMessageId ? this.#authors.get(m.clientMessageId) : undefined;
			return sinceOpened && author?.origin === 'agent' && author.accountId !== this.context.accountId;
		});
		const otherAuthor = otherReply?.clientMessageId ? this.#authors.get(otherReply.clientMessageId) : undefined;
		if (otherAuthor?.origin === 'agent') this.#othersReplied = otherAuthor.displayName;
		// a reply of an agent shown typing ends their typing at once, not when the indicator times out
		if (sinceOpened) {
			const agents = found.flatMap((author) => (author.origin === 'agent' && author.accountId ? [author.accountId] : []));
			this.#presence = typingEnded(this.#presence, agents);
		}
	}

	private newestStored(): ThreadMessage | undefined {
		for (let i = this.#messages.length - 1; i >= 0; i--) if (this.#messages[i].messageId) return this.#messages[i];
		return undefined;
	}

	private oldestStored(): ThreadMessage | undefined {
		return this.#messages.find((m) => m.messageId);
	}

	async loadNewest(): Promise<void> {
		const shown = await this.showNewest();
		await shown?.named;
	}

	/** Loads (unless it is on its way), decrypts and shows the newest page; null when it failed (the page says why). */
	private async showNewest(requested = v1Call(v1.listMessages(this.conversationId, { limit: PAGE_SIZE }))): Promise<ShownPage | null> {
		try {
			this.#loadError = null;
			const page = await requested;
			this.#hasOlder = page.hasMore;
			return { named: this.show(await this.decrypt(page.data)) };
		} catch (error) {
			this.#loadError = explainError(error);
			return null;
		}
	}

	/** The page just older than the oldest loaded message (`before`). */
	async loadOlder(limit = PAGE_SIZE): Promise<void> {
		const shown = await this.showOlder(limit);
		await shown?.named;
	}

	/** Loads, decrypts and shows the page before the oldest loaded message; null when there is none to load or it failed. */
	private async showOlder(limit: number): Promise<ShownPage | null> {
		const oldest = this.oldestStored();
		if (!oldest?.messageId || this.#loadingOlder || !this.#hasOlder) return null;
		this.#loadingOlder = true;
		try {
			const page = await v1Call(v1.listMessages(this.conversationId, { limit, before: oldest.messageId }));
			this.#hasOlder = page.hasMore;
			return { named: this.show(await this.decrypt(page.data)) };
		} catch (error) {
			this.#loadError = explainError(error);
			return null;
		} finally {
			this.#loadingOlder = false;
		}
	}

	/** Everything newer than the newest loaded message (`after`), e.g. after a reconnection. */
	async catchUp(): Promise<void> {
		if (this.#keyState !== 'open') return;
		const newest = this.newestStored();
		if (!newest?.messageId) return this.loadNewest();
		let after = newest.messageId;
		for (let pages = 0; pages < 20; pages++) {
			const page = await v1Call(v1.listMessages(this.conversationId, { limit: LARGEST_PAGE, after }));
			await this.show(await this.decrypt(page.data), true);
			if (!page.hasMore || page.data.length === 0) return;
			after = page.data[page.data.length - 1].messageId;
		}
	}

	/**
	 * A message from `/api/events`; a gap in `seq` means something was missed, so fetch what is newer.
	 * One older than the loaded pages (the server processed it late) comes with `loadOlder` instead:
	 * added now, it would open a hole in the history between it and the oldest page.
	 */
	async receive(message: StoredMessage): Promise<void> {
		if (this.#keyState !== 'open') return;
		if (this.#messages.some((m) => m.messageId === message.messageId && !m.problem)) return;
		const oldest = this.oldestStored();
		// a message without a seq has no place in the order: it is shown, never held back
		if (this.#hasOlder && oldest?.seq && message.seq !== null && message.seq < oldest.seq) return;
		const newest = this.newestStored();
		if (newest?.seq && message.seq !== null && message.seq > newest.seq + 1) return this.catchUp();
		await this.show(await this.decrypt([message]), true);
	}

	/** The conversation's notes, decrypted in one worker call. */
	async loadNotes(): Promise<void> {
		try {
			const { data } = await listNotes(this.conversationId);
			await this.addNotes(data);
		} catch (error) {
			this.#loadError = explainError(error);
		}
	}

	/** A note from `/api/events` (another agent's, or this one's from another tab). */
	async receiveNote(note: ConversationNote): Promise<void> {
		if (this.#keyState !== 'open' || this.#notes.some((shown) => shown.noteId === note.noteId && !shown.problem)) return;
		await this.addNotes([note]);
	}

	/** Whom a note may mention; without the list the composer offers no one, and a note mentions no one. */
	private async loadReaders(): Promise<void> {
		const { data } = await listReaders(this.conversationId).catch(() => ({ data: [] as TeamMember[] }));
		if (!this.disposed) this.#mentionable = data.filter((reader) => reader.accountId !== this.context.accountId);
	}

	/**
	 * Encrypts a private note in the worker and stores it with the ids of the readers its text mentions
	 * (`@Name`, docs/inbox-api.md §4 "Mentions"): the server learns who, never what. It never goes to the service.
	 */
	async addNote(text: string): Promise<void> {
		const envelope = await this.encryptRecord('note', text);
		const stored = await addNote(this.conversationId, envelope, mentionedIds(text, this.#mentionable));
		if (!this.disposed) this.#notes = mergeNotes(this.#notes, [toThreadNote(stored, { ok: true, text }, explainMessageProblem)]);
	}

	/** A private record of this agent, encrypted in the worker under the open key (docs/private-records.md). */
	private encryptRecord(kind: PrivateRecordKind, text: string): Promise<PrivateEnvelope> {
		this.requireOpenKey();
		return this.context.crypto.encryptPrivateRecord({ kind, conversationId: this.conversationId, authorId: this.context.accountId, text });
	}

	private async addNotes(notes: readonly ConversationNote[]): Promise<void> {
		if (notes.length === 0) return;
		const outcomes = await this.context.crypto.decryptPrivateRecords(
			this.conversationId,
			'note',
			notes.map((note) => ({ authorId: note.authorId, envelope: note.envelope }))
		);
		if (this.disposed) return;
		this.#notes = mergeNotes(
			this.#notes,
			notes.map((note, index) => toThreadNote(note, outcomes[index], explainMessageProblem))
		);
	}

	customerRead(upToMessageId: string): void {
		this.#customerReadUpTo = upToMessageId;
	}

	/** `read` up to the newest message loaded, once per new message, while the page is visible. */
	async markRead(): Promise<void> {
		const newest = this.newestStored();
		if (!newest?.messageId || newest.messageId === this.lastReadSent || this.#keyState !== 'open') return;
		if (typeof document !== 'undefined' && document.visibilityState !== 'visible') return;
		const upTo = newest.messageId;
		this.lastReadSent = upTo;
		try {
			await v1Call(v1.markRead(this.conversationId, upTo), { idempotencyKey: newIdempotencyKey('read') });
			this.context.onRead(this.conversationId);
		} catch {
			this.lastReadSent = null;
		}
	}

	/** `typing`, at most every 4 s while the agent writes (the service shows it for 5 s). */
	typed(): void {
		if (this.#keyState !== 'open' || this.#conversation.status !== 'active' || !this.typing.take()) return;
		void v1Call(v1.typing(this.conversationId), { idempotencyKey: newIdempotencyKey('typing') }).catch(() => undefined);
		void postPresence(this.conversationId, 'typing').catch(() => undefined);
	}

	async close(): Promise<void> {
		const record = await v1Call(v1.close(this.conversationId), { idempotencyKey: newIdempotencyKey('close') });
		this.#conversation = { ...this.#conversation, status: record.status, closedAt: record.closedAt };
	}

	/** The version of the open key; `CONVERSATION_KEY_NOT_OPEN` when there is none (nothing may be written then). */
	private requireOpenKey(): number {
		if (this.#keyState !== 'open' || this.#keyVersion === null) {
			throw new ContractError('CONVERSATION_KEY_NOT_OPEN', 'You cannot write here yet: the conversation key is not open in this browser.');
		}
		return this.#keyVersion;
	}

	/** The service stored a send of this agent: its bubble says "You" without asking the inbox, and it becomes the preview. */
	private delivered(clientMessageId: string, shown: ThreadMessage | undefined): void {
		const author: MessageAuthor = {
			conversationId: this.conversationId,
			clientMessageId,
			origin: 'agent',
			accountId: this.context.accountId,
			displayName: 'You'
		};
		this.#authors = withAuthors(this.#authors, [author]);
		if (shown) this.preview(shown);
	}

	private preview(message: ThreadMessage): void {
		const text = message.attachment ? `File: ${message.attachment.name}` : (message.text ?? '');
		this.context.onPreview(this.conversationId, previewWithAuthor(text, message.senderType, this.authorOf(message)));
	}

	// -------------------------------------------------------------------------------------------
	// Sending: the tray of files, the check that nobody else replied meanwhile, and the order of a reply

	/** Files picked or dropped, waiting in the order they will be sent until the agent sends. */
	get staged(): readonly StagedFile[] {
		return this.#staged;
	}

	/** Why files were refused when staged, or could not be sent, for the page's error line. */
	get trayError(): string | null {
		return this.#trayError;
	}

	/** Another agent who replied since this thread was opened, while a reply waits for `answerCollision`; else null. */
	get collision(): string | null {
		return this.#collision?.name ?? null;
	}

	/** Adds files at the end of the tray; a file too large, or past the tray's size, is refused with its reason. */
	stage(files: readonly File[]): void {
		const result = stageFiles(this.#staged, files, (file) => URL.createObjectURL(file));
		this.#staged = result.tray;
		this.#trayError = result.refused.length ? result.refused.join(' ') : null;
	}

	unstage(id: string): void {
		this.letGo(this.#staged.filter((item) => item.id === id));
		this.#staged = this.#staged.filter((item) => item.id !== id);
	}

	caption(id: string, caption: string): void {
		this.#staged = this.#staged.map((item) => (item.id === id ? { ...item, caption } : item));
	}

	dismissTrayError(): void {
		this.#trayError = null;
	}

	/** Lets the thumbnails of these staged files go (their bubbles, once sent, show the files). */
	private letGo(items: readonly StagedFile[]): void {
		for (const item of items) if (item.preview) URL.revokeObjectURL(item.preview);
	}

	/**
	 * Sends a reply (contract 4.2, 4.3): when another agent replied since the thread was opened it asks
	 * first (`collision`, until `answerCollision`); then the text, then the tray's files in the tray's
	 * order. Resolves once the text is encrypted and queued (the sends go on); false when the agent
	 * cancelled, and the text and files stay.
	 */
	async sendReply(text: string): Promise<boolean> {
		const other = this.#othersReplied;
		if (other) {
			if (!(await this.askFirst(other))) return false;
			this.#othersReplied = null;
		}
		if (text.trim() !== '') await this.sender.sendText(text);
		this.sendStaged();
		return true;
	}

	/** The agent's answer to `collision`: send anyway, or not. */
	answerCollision(send: boolean): void {
		this.#collision?.answer(send);
	}

	private askFirst(name: string): Promise<boolean> {
		this.#collision?.answer(false);
		return new Promise((resolve) => {
			this.#collision = {
				name,
				answer: (send) => {
					this.#collision = null;
					resolve(send);
				}
			};
		});
	}

	/** The tray's files go, in order, with their captions, each uploaded and sent after the one before it. */
	private sendStaged(): void {
		if (this.#staged.length === 0) return;
		const items = filesToSend(this.#staged);
		this.letGo(this.#staged);
		this.#staged = [];
		void this.sender.sendFiles(items).catch((error) => (this.#trayError = explainError(error)));
	}

	retry(localId: string): Promise<void> {
		return this.sender.retry(localId);
	}

	discard(localId: string): void {
		this.sender.discard(localId);
	}

	/** The connection came back: sends waiting in the outbox go now. */
	connectionReturned(): void {
		this.sender.connectionReturned();
	}

	/** Forgets plaintext and files (the page is leaving the thread or the key was locked). */
	dispose(): void {
		if (this.#viewingTimer) {
			clearInterval(this.#viewingTimer);
			void postPresence(this.conversationId, 'left').catch(() => undefined);
		}
		this.disposed = true;
		this.sender.stop();
		this.#collision?.answer(false);
		this.letGo(this.#staged);
		this.#staged = [];
		this.#messages = [];
		this.#notes = [];
		this.#profile = null;
	}
}

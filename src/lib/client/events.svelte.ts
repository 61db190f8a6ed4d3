/**
 * Live updates from `GET /api/events` (docs/inbox-api.md §7): one EventSource per page, typed
 * handlers, resumption with `Last-Event-ID` (the browser resends it; after a hard failure we reconnect
 * with `?lastEventId=`), a `resync` when the server cannot replay what was missed, and a watchdog: a
 * stream silent for 2.5 heartbeats is dead (a stopped server, a sleeping laptop's lost connection)
 * even when the browser still thinks it is open, so it is closed and opened again.
 */
import { getSession } from './api';
import { connectivity, type LiveStatus } from './connectivity.svelte';
import type { ConversationNote, MentionEvent } from '../inbox-api/records';
import type { PresenceEvent } from './presence';
import type { ConversationView, StoredMessage } from './types';

export interface LiveHandlers {
	conversation(conversation: ConversationView, kind: 'started' | 'changed'): void;
	message(conversationId: string, message: StoredMessage): void;
	read(conversationId: string, upToMessageId: string): void;
	/** An agent added a private note (ciphertext). */
	note(conversationId: string, note: ConversationNote): void;
	/** A note mentioned this agent (sent to it alone). */
	mention(event: MentionEvent): void;
	/** This agent read its mentions of a conversation, maybe in another tab. */
	mentionRead(conversationId: string): void;
	/** An admin changed the team's labels. */
	labels(): void;
	/** An admin changed the teams (§4 "Teams"). */
	teams(): void;
	/** An admin changed the business hours or service targets. */
	targets(): void;
	/** Someone's availability changed (§4 "Availability"). */
	team(): void;
	/** An agent is viewing, typing in, or left a conversation. */
	presence(event: PresenceEvent): void;
	/** The server cannot replay the missed events: reload everything. */
	resync(): void;
	/** The stream is live again after a reconnection (missed events were replayed). */
	ready?(): void;
}

const RECONNECT_DELAYS_MS = [1000, 2000, 5000, 10_000, 30_000];
/** Until `ready` says otherwise. */
const DEFAULT_HEARTBEAT_MS = 15_000;
/** Heartbeats missed before the stream counts as dead. */
const SILENT_HEARTBEATS = 2.5;

export class LiveEvents {
	status = $state<LiveStatus>('stopped');
	private source: EventSource | null = null;
	private lastEventId: string | null = null;
	private attempt = 0;
	private timer: ReturnType<typeof setTimeout> | null = null;
	private watchdog: ReturnType<typeof setTimeout> | null = null;
	private heartbeatMs = DEFAULT_HEARTBEAT_MS;

	constructor(private readonly handlers: LiveHandlers) {}

	/** Something came from the server: the stream is alive for another 2.5 heartbeats. */
	private heard(): void {
		if (this.watchdog) clearTimeout(this.watchdog);
		this.watchdog = setTimeout(() => this.silent(), this.heartbeatMs * SILENT_HEARTBEATS);
	}

	private silent(): void {
		this.watchdog = null;
		if (this.status === 'stopped') return;
		this.closeSource();
		this.status = 'reconnecting';
		this.scheduleReconnect();
	}

	/**
	 * Opens the stream; the first time, `afterEventId` (the event the loaded list reflects) makes the
	 * server replay what followed it.
	 */
	start(afterEventId?: number): void {
		if (this.source) return;
		this.status = this.lastEventId === null ? 'connecting' : 'reconnecting';
		if (this.lastEventId === null && afterEventId !== undefined) this.lastEventId = String(afterEventId);
		const url = this.lastEventId === null ? '/api/events' : `/api/events?lastEventId=${encodeURIComponent(this.lastEventId)}`;
		const source = new EventSource(url, { withCredentials: true });
		this.source = source;
		this.heard();
		const on = (name: string, handle: (data: unknown) => void) =>
			source.addEventListener(name, (event) => {
				this.heard();
				const message = event as MessageEvent<string>;
				if (message.lastEventId) this.lastEventId = message.lastEventId;
				let data: unknown;
				try {
					data = JSON.parse(message.data);
				} catch {
					return;
				}
				handle(data);
			});
		on('ready', (data) => {
			const { heartbeatSeconds: seconds, serviceReachable } = (data ?? {}) as { heartbeatSeconds?: unknown; serviceReachable?: unknown };
			if (typeof seconds === 'number' && seconds > 0) this.heartbeatMs = seconds * 1000;
			if (typeof serviceReachable === 'boolean') connectivity.serviceReported(serviceReachable);
			this.heard();
			this.attempt = 0;
			this.status = 'live';
			this.handlers.ready?.();
		});
		on('conversation.started', (data) => this.handlers.conversation((data as { conversation: ConversationView }).conversation, 'started'));
		on('conversation.changed', (data) => this.handlers.conversation((data as { conversation: ConversationView }).conversation, 'changed'));
		on('message.created', (data) => {
			const event = data as { conversationId: string; message: StoredMessage };
			this.handlers.message(event.conversationId, event.message);
		});
		on('message.read', (data) => {
			const event = data as { conversationId: string; upToMessageId: string };
			this.handlers.read(event.conversationId, event.upToMessageId);
		});
		on('note.created', (data) => {
			const event = data as { conversationId: string; note: ConversationNote };
			this.handlers.note(event.conversationId, event.note);
		});
		on('mention.created', (data) => this.handlers.mention(data as MentionEvent));
		on('mention.read', (data) => this.handlers.mentionRead((data as { conversationId: string }).conversationId));
		on('presence', (data) => this.handlers.presence(data as PresenceEvent));
		on('labels.changed', () => this.handlers.labels());
		on('teams.changed', () => this.handlers.teams());
		on('settings.changed', () => this.handlers.targets());
		on('team.changed', () => this.handlers.team());
		on('heartbeat', () => undefined);
		on('service.state', (data) => {
			const reachable = (data as { reachable?: unknown } | null)?.reachable;
			if (typeof reachable === 'boolean') connectivity.serviceReported(reachable);
		});
		on('resync', () => this.handlers.resync());
		source.addEventListener('error', () => {
			if (source.readyState === EventSource.CONNECTING) {
				this.status = 'reconnecting';
				return;
			}
			// closed for good (e.g. 401 or a server restart answering non-200): check the session, then retry
			this.closeSource();
			this.status = 'reconnecting';
			void getSession()
				.then(() => this.scheduleReconnect())
				.catch(() => {
					// a 401 has told the session already; other failures: keep trying
					if (this.status !== 'stopped') this.scheduleReconnect();
				});
		});
	}

	private scheduleReconnect(): void {
		if (this.status === 'stopped' || this.timer) return;
		const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)];
		this.attempt++;
		this.timer = setTimeout(() => {
			this.timer = null;
			if (this.status !== 'stopped') this.start();
		}, delay);
	}

	private closeSource(): void {
		this.source?.close();
		this.source = null;
		if (this.watchdog) clearTimeout(this.watchdog);
		this.watchdog = null;
	}

	stop(): void {
		this.status = 'stopped';
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		this.closeSource();
	}
}

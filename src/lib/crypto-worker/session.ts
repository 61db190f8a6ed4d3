/**
 * The secrets the worker holds in memory ("handles, not keys"): at most one unlocked
 * key per kind, known to the page only by an opaque handle, and the conversation keys opened with
 * the agent key. `lock()` wipes all of them.
 */
import { b64uEncode, constantTimeEqual } from '../crypto/encoding';
import { fail } from '../errors';
import { sodium } from '../crypto/sodium';
import type { KeyInfo, OpenedKey } from '../keystore/keystore';
import type { KeyKind } from '../keystore/schema';
import { openConversationKey, type Wrap } from '../crypto/wrap';
import { ConversationKeyCache, type ConversationKey } from './conversation-keys';
import type { OpenedConversation } from './types';

export interface HeldKey {
	/** Opaque reference the page uses; invalid after `lock()`. */
	handle: string;
	info: KeyInfo;
	publicKey: Uint8Array;
	secretKey: Uint8Array;
}

export class KeySession {
	private readonly held = new Map<KeyKind, HeldKey>();
	readonly conversationKeys: ConversationKeyCache;

	constructor(conversationKeyCapacity?: number) {
		this.conversationKeys = new ConversationKeyCache(conversationKeyCapacity);
	}

	/**
	 * Keeps an opened key and returns its handle. Unlocking the same key again keeps the existing
	 * handle; another key of the same kind replaces it (and, for the agent, its conversation keys).
	 */
	hold(opened: OpenedKey): HeldKey {
		const kind = opened.info.kind;
		const current = this.held.get(kind);
		if (current && constantTimeEqual(current.publicKey, opened.publicKey)) {
			opened.secretKey.fill(0);
			current.info = opened.info;
			return current;
		}
		this.forget(kind);
		const key: HeldKey = { handle: `key_${b64uEncode(sodium().randombytes_buf(16))}`, ...opened };
		this.held.set(kind, key);
		return key;
	}

	/** The key behind a handle, which must be of `kind`; a stale or unknown handle is `LOCKED`. */
	require(handle: unknown, kind: KeyKind): HeldKey {
		for (const key of this.held.values()) {
			if (key.handle === handle) {
				if (key.info.kind !== kind) fail('INVALID_INPUT', `this operation needs the ${kind} key, not the ${key.info.kind} key`);
				return key;
			}
		}
		return fail('LOCKED', `the ${kind} key is locked: unlock it with its passphrase first`);
	}

	isUnlocked(kind: KeyKind): boolean {
		return this.held.has(kind);
	}

	/** `LOCKED` unless the key of `kind` is unlocked. */
	requireUnlocked(kind: KeyKind): void {
		if (!this.isUnlocked(kind)) fail('LOCKED', `the ${kind} key is locked: unlock it with its passphrase first`);
	}

	/** The open conversation key; `LOCKED` when the agent key is locked, otherwise `CONVERSATION_KEY_NOT_OPEN`. */
	conversationKey(conversationId: string): ConversationKey {
		const entry = this.conversationKeys.get(conversationId);
		if (entry) return entry;
		this.requireUnlocked('agent');
		return fail('CONVERSATION_KEY_NOT_OPEN', `no key is open for conversation ${conversationId}: open its wrap first`);
	}

	/** Opens a wrap sealed for the agent key behind `handle` (contract 6.1) and caches K. */
	openConversationKey(handle: unknown, conversationId: string, wrap: Wrap): OpenedConversation {
		const agent = this.require(handle, 'agent');
		const key = openConversationKey(wrap, conversationId, [agent]);
		try {
			this.conversationKeys.set(conversationId, wrap.keyVersion, key);
			// Stryker disable next-line all: equivalent: wipes this call's own copy of K; the store keeps its own copy
		} finally {
			key.fill(0);
		}
		return { conversationId, keyVersion: wrap.keyVersion };
	}

	/** Wipes one kind; forgetting the agent key also wipes every conversation key. */
	forget(kind: KeyKind): void {
		const key = this.held.get(kind);
		if (key) key.secretKey.fill(0);
		this.held.delete(kind);
		if (kind === 'agent') this.conversationKeys.clear();
	}

	/** Wipes every secret and conversation key held by the worker. */
	lock(): void {
		for (const kind of [...this.held.keys()]) this.forget(kind);
		this.conversationKeys.clear();
	}
}

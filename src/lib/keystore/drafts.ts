/**
 * Drafts (docs/crypto-worker.md "Drafts"): the reply or note an agent is writing, one per
 * conversation, kept in the account's key store sealed with AES-256-GCM under the device key, so a
 * draft survives a switch of conversation and a reload but is never plaintext at rest. The additional
 * data names the conversation: a record copied under another conversation's id does not open.
 */
import { utf8Decode, utf8Encode } from '../crypto/encoding';
import { fail } from '../errors';
import { requireId } from '../crypto/rules';
import { openForDevice, sealForDevice } from './device-key';
import type { KeyStoreDatabase } from './schema';

export type DraftMode = 'reply' | 'note';

export interface Draft {
	text: string;
	mode: DraftMode;
}

/** Four times the largest message text (contract 6.2: 65,536 UTF-8 bytes), so a long paste is kept to be trimmed. */
export const MAX_DRAFT_CHARACTERS = 4 * 65_536;

const DRAFT_MODES: readonly DraftMode[] = ['reply', 'note'];

export function draftContext(conversationId: string): string {
	return `inbox-draft|v1|${conversationId}`;
}

export function requireDraft(value: unknown): Draft {
	const draft = value as Draft;
	if (typeof draft !== 'object' || draft === null) fail('INVALID_INPUT', 'a draft must be an object with text and mode');
	if (typeof draft.text !== 'string') fail('INVALID_INPUT', 'draft text must be a string');
	if (draft.text.length > MAX_DRAFT_CHARACTERS) fail('INVALID_INPUT', `draft text must be at most ${MAX_DRAFT_CHARACTERS} characters`);
	if (!DRAFT_MODES.includes(draft.mode)) fail('INVALID_INPUT', 'draft mode must be reply or note');
	return { text: draft.text, mode: draft.mode };
}

export class DraftStore {
	constructor(
		private readonly database: () => Promise<KeyStoreDatabase>,
		private readonly deviceKey: () => Promise<CryptoKey>
	) {}

	/** Keeps the draft of a conversation; a draft with only white space removes it. */
	async save(conversationId: string, value: unknown): Promise<void> {
		requireId(conversationId, 'conversationId');
		const draft = requireDraft(value);
		if (draft.text.trim() === '') return this.remove(conversationId);
		const sealed = await sealForDevice(await this.deviceKey(), utf8Encode(JSON.stringify(draft)), draftContext(conversationId));
		await (await this.database()).put('drafts', { conversationId, sealed, updatedAt: new Date().toISOString() });
	}

	/** The stored draft, or null; a record that does not open (another browser's, tampered) is dropped. */
	async load(conversationId: string): Promise<Draft | null> {
		requireId(conversationId, 'conversationId');
		const database = await this.database();
		const record = await database.get('drafts', conversationId);
		if (!record) return null;
		try {
			const opened = await openForDevice(await this.deviceKey(), record.sealed, draftContext(conversationId));
			return requireDraft(JSON.parse(utf8Decode(opened)));
		} catch {
			await database.delete('drafts', conversationId);
			return null;
		}
	}

	/** The conversations that have a draft (their ids are the records' keys, not sealed). */
	async conversations(): Promise<string[]> {
		return (await (await this.database()).getAllKeys('drafts')).map(String);
	}

	async remove(conversationId: string): Promise<void> {
		await (await this.database()).delete('drafts', requireId(conversationId, 'conversationId'));
	}

	/** Every draft of this account, at sign-out. */
	async clear(): Promise<void> {
		await (await this.database()).clear('drafts');
	}
}

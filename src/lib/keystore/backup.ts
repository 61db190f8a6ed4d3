/**
 * The encrypted key backup file: the passphrase layer of a stored key (Argon2id +
 * XChaCha20-Poly1305, see passphrase.ts) with its public values, as JSON. It does not depend on the
 * device key, so it restores the key in another browser; without the passphrase it is useless.
 */
import { b64uDecodeLength } from '../crypto/encoding';
import { fail } from '../errors';
import { requireAgentKeyId } from '../crypto/rules';
import { validatePassphraseKdf, type PassphraseSealed } from './passphrase';
import { KEY_KINDS, type KeyKind } from './schema';

export const BACKUP_FORMAT = 'encrypted-inbox-key-backup';
export const BACKUP_VERSION = 1;
/** A backup is about 600 bytes; anything much larger is not one. */
export const MAX_BACKUP_TEXT = 64 * 1024;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

export interface KeyBackup extends PassphraseSealed {
	format: typeof BACKUP_FORMAT;
	version: typeof BACKUP_VERSION;
	kind: KeyKind;
	/** b64u of the public key; bound into the box's additional data. */
	publicKey: string;
	agentKeyId?: string;
	createdAt: string;
	exportedAt: string;
}

/** The additional data of the passphrase layer: a box only opens as the record it was made for. */
export function passphraseContext(kind: KeyKind, publicKey: string): string {
	return `inbox-keystore|v1|${kind}|${publicKey}`;
}

export function formatBackup(backup: KeyBackup): string {
	return `${JSON.stringify(backup, null, '\t')}\n`;
}

/** `inbox-agent-key-agk_….json`, `inbox-signing-key-<date>.json`. */
export function backupFileName(backup: KeyBackup): string {
	const label = backup.kind === 'agent' ? backup.agentKeyId : backup.exportedAt.slice(0, 10);
	return `inbox-${backup.kind}-key-${label}.json`;
}

/** Parses and checks a backup file's text; anything malformed is `INVALID_INPUT` naming the field. */
export function parseBackup(text: unknown): KeyBackup {
	if (typeof text !== 'string') fail('INVALID_INPUT', 'a backup file must be text');
	if (text.length > MAX_BACKUP_TEXT) fail('INVALID_INPUT', 'this file is too large to be a key backup');
	let value: Record<string, unknown>;
	try {
		value = JSON.parse(text);
	} catch {
		return fail('INVALID_INPUT', 'this file is not a key backup (not JSON)');
	}
	if (typeof value !== 'object' || value === null || value.format !== BACKUP_FORMAT)
		fail('INVALID_INPUT', 'this file is not a key backup of the inbox');
	if (value.version !== BACKUP_VERSION) fail('UNSUPPORTED_VERSION', `key backup version ${String(value.version)} is not supported`);
	const kind = value.kind as KeyKind;
	if (!KEY_KINDS.includes(kind)) fail('INVALID_INPUT', 'backup kind must be agent or signing');
	b64uDecodeLength(value.publicKey, 32, 'backup publicKey');
	const agentKeyId = kind === 'agent' ? requireAgentKeyId(value.agentKeyId) : undefined;
	for (const field of ['createdAt', 'exportedAt'] as const) {
		if (typeof value[field] !== 'string' || !ISO_INSTANT.test(value[field]))
			fail('INVALID_INPUT', `backup ${field} must be an ISO 8601 UTC time`);
	}
	b64uDecodeLength(value.nonce, 24, 'backup nonce');
	b64uDecodeLength(value.box, kind === 'agent' ? 32 + 16 : 64 + 16, 'backup box');
	return {
		format: BACKUP_FORMAT,
		version: BACKUP_VERSION,
		kind,
		publicKey: value.publicKey as string,
		...(agentKeyId ? { agentKeyId } : {}),
		createdAt: value.createdAt as string,
		exportedAt: value.exportedAt as string,
		kdf: validatePassphraseKdf(value.kdf),
		nonce: value.nonce as string,
		box: value.box as string
	};
}

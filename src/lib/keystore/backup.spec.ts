import { describe, expect, it } from 'vitest';
import { b64uEncode } from '../crypto/encoding';
import { codeOf } from '../errors';
import { BACKUP_FORMAT, backupFileName, formatBackup, MAX_BACKUP_TEXT, parseBackup, passphraseContext, type KeyBackup } from './backup';

const bytes = (length: number, fill = 1) => b64uEncode(new Uint8Array(length).fill(fill));

const agentBackup: KeyBackup = {
	format: BACKUP_FORMAT,
	version: 1,
	kind: 'agent',
	publicKey: bytes(32),
	agentKeyId: 'agk_AbCdEfGhIjKlMnOp',
	createdAt: '2026-11-22T10:00:00.000Z',
	exportedAt: '2026-11-23T08:30:00.000Z',
	kdf: { algorithm: 'argon2id13', opslimit: 3, memlimit: 64 * 1024 * 1024, salt: bytes(16) },
	nonce: bytes(24),
	box: bytes(48)
};

const codeOfParse = (value: unknown) => {
	try {
		parseBackup(typeof value === 'string' ? value : JSON.stringify(value));
	} catch (error) {
		return codeOf(error);
	}
	return 'no error';
};

describe('the key backup file', () => {
	it('round-trips through its text form and names itself after the key', () => {
		expect(parseBackup(formatBackup(agentBackup))).toEqual(agentBackup);
		expect(backupFileName(agentBackup)).toBe('inbox-agent-key-agk_AbCdEfGhIjKlMnOp.json');
		const signing: KeyBackup = { ...agentBackup, kind: 'signing', agentKeyId: undefined, box: bytes(80) };
		delete signing.agentKeyId;
		expect(parseBackup(formatBackup(signing))).toEqual(signing);
		expect(backupFileName(signing)).toBe('inbox-signing-key-2026-11-23.json');
	});

	it('binds the box to the kind and the public key', () => {
		expect(passphraseContext('agent', 'pk')).toBe('inbox-keystore|v1|agent|pk');
	});

	it('keeps only known fields', () => {
		expect(parseBackup(JSON.stringify({ ...agentBackup, comment: 'hello' }))).toEqual(agentBackup);
	});

	it.each([
		['not JSON', '{', 'INVALID_INPUT', 'this file is not a key backup (not JSON)'],
		['JSON of no object', 'null', 'INVALID_INPUT', 'this file is not a key backup of the inbox'],
		['a number', '7', 'INVALID_INPUT', 'this file is not a key backup of the inbox'],
		['another format', { ...agentBackup, format: 'something' }, 'INVALID_INPUT', 'this file is not a key backup of the inbox'],
		['a later version', { ...agentBackup, version: 2 }, 'UNSUPPORTED_VERSION', 'key backup version 2 is not supported'],
		['an unknown kind', { ...agentBackup, kind: 'admin' }, 'INVALID_INPUT', 'backup kind must be agent or signing'],
		['a short public key', { ...agentBackup, publicKey: bytes(31) }, 'INVALID_INPUT', 'backup publicKey must be 32 bytes, got 31'],
		['a bad agentKeyId', { ...agentBackup, agentKeyId: 'agk_short' }, 'INVALID_INPUT', 'agentKeyId must be agk_'],
		[
			'a date with an offset',
			{ ...agentBackup, createdAt: '2026-11-22T10:00:00+01:00' },
			'INVALID_INPUT',
			'backup createdAt must be an ISO 8601 UTC time'
		],
		['no export date', { ...agentBackup, exportedAt: 1 }, 'INVALID_INPUT', 'backup exportedAt must be an ISO 8601 UTC time'],
		['a short nonce', { ...agentBackup, nonce: bytes(23) }, 'INVALID_INPUT', 'backup nonce must be 24 bytes, got 23'],
		['a box of the wrong length for its kind', { ...agentBackup, box: bytes(80) }, 'INVALID_INPUT', 'backup box must be 48 bytes, got 80'],
		[
			'weak KDF parameters',
			{ ...agentBackup, kdf: { ...agentBackup.kdf, opslimit: 1 } },
			'INVALID_INPUT',
			'kdf opslimit must be an integer'
		],
		['a huge file', 'x'.repeat(MAX_BACKUP_TEXT + 1), 'INVALID_INPUT', 'this file is too large to be a key backup']
	])('refuses %s, saying why', (_label, value, code, message) => {
		expect(codeOfParse(value)).toBe(code);
		expect(() => parseBackup(typeof value === 'string' ? value : JSON.stringify(value))).toThrow(message);
	});

	it('reads a file of exactly the largest size, and writes one field per line', () => {
		const text = formatBackup(agentBackup);
		expect(text.startsWith('{\n\t"format": ')).toBe(true);
		expect(text.endsWith('}\n')).toBe(true);
		const padded = text.trimEnd().slice(0, -1) + `,"pad":"${'x'.repeat(MAX_BACKUP_TEXT - text.trimEnd().length - 9)}"}`;
		expect(padded).toHaveLength(MAX_BACKUP_TEXT);
		expect(parseBackup(padded)).toEqual(agentBackup);
	});

	it('refuses anything that is not text', () => {
		expect(() => parseBackup(42)).toThrow(/must be text/);
	});
});

import { describe, expect, it } from 'vitest';
import { b64uEncode } from '../crypto/encoding';
import { codeOf } from '../crypto/errors';
import { BACKUP_FORMAT, backupFileName, formatBackup, parseBackup, passphraseContext, type KeyBackup } from './backup';

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
		['not JSON', '{', 'INVALID_INPUT'],
		['another format', { ...agentBackup, format: 'something' }, 'INVALID_INPUT'],
		['a later version', { ...agentBackup, version: 2 }, 'UNSUPPORTED_VERSION'],
		['an unknown kind', { ...agentBackup, kind: 'admin' }, 'INVALID_INPUT'],
		['a short public key', { ...agentBackup, publicKey: bytes(31) }, 'INVALID_INPUT'],
		['a bad agentKeyId', { ...agentBackup, agentKeyId: 'agk_short' }, 'INVALID_INPUT'],
		['a date with an offset', { ...agentBackup, createdAt: '2026-11-22T10:00:00+01:00' }, 'INVALID_INPUT'],
		['a short nonce', { ...agentBackup, nonce: bytes(23) }, 'INVALID_INPUT'],
		['a box of the wrong length for its kind', { ...agentBackup, box: bytes(80) }, 'INVALID_INPUT'],
		['weak KDF parameters', { ...agentBackup, kdf: { ...agentBackup.kdf, opslimit: 1 } }, 'INVALID_INPUT'],
		['a huge file', 'x'.repeat(70_000), 'INVALID_INPUT']
	])('refuses %s', (_label, value, code) => {
		expect(codeOfParse(value)).toBe(code);
	});

	it('refuses anything that is not text', () => {
		expect(() => parseBackup(42)).toThrow(/must be text/);
	});
});

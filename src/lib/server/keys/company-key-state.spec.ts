import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { fingerprintB64u, initCrypto } from '../../crypto/index';
import { checkCompanyKeyFiles, COMPANY_KEY_CHANNEL } from './company-key-state';
import { initCompanyKeys, KeyFileError, loadCompanyKeys, rotateCompanyKeys } from './files';

const now = new Date('2026-11-25T12:00:00Z');

function keysIn(parent: string) {
	const dir = join(parent, 'keys');
	return { dir, load: () => loadCompanyKeys(dir) };
}

describe.each(BACKENDS)('the company key files every process must share, on %s (docs/operations.md)', (backend) => {
	const databases = useDatabases(backend);

	it('records the first key, refuses files that are behind or differ, and records a rotation made here', async () => {
		await initCrypto();
		const db = await databases.open();
		const machineA = keysIn(mkdtempSync(join(tmpdir(), 'machine-a-')));
		await initCompanyKeys(machineA.dir);
		const machineB = mkdtempSync(join(tmpdir(), 'machine-b-'));
		cpSync(machineA.dir, join(machineB, 'keys'), { recursive: true });
		const copy = keysIn(machineB);
		const stranger = keysIn(mkdtempSync(join(tmpdir(), 'stranger-')));
		await initCompanyKeys(stranger.dir);

		await checkCompanyKeyFiles(db, await machineA.load(), now);
		await checkCompanyKeyFiles(db, await copy.load(), now);
		const other = checkCompanyKeyFiles(db, await stranger.load(), now);
		await expect(other).rejects.toBeInstanceOf(KeyFileError);
		const recorded = fingerprintB64u((await machineA.load()).current.publicKey);
		await expect(other).rejects.toThrow(
			`public.key (version 1) is not the one the other inbox processes use (fingerprint ${recorded}): every machine needs the same DATA_DIR/keys`
		);

		// A rotates: recorded and announced; B's files, not copied yet, are refused until they are.
		const announced: (string | null)[] = [];
		const stop = await db.listen(COMPANY_KEY_CHANNEL, (payload) => announced.push(payload));
		await rotateCompanyKeys(machineA.dir);
		await checkCompanyKeyFiles(db, await machineA.load(), now);
		await expect.poll(() => announced).toEqual(['2']);
		const rotated = fingerprintB64u((await machineA.load()).current.publicKey);
		await expect(checkCompanyKeyFiles(db, await copy.load(), now)).rejects.toThrow(
			`the company key files here are at version 1, the other inbox processes use version 2 (fingerprint ${rotated}): copy DATA_DIR/keys from the machine where the key was rotated`
		);
		cpSync(machineA.dir, copy.dir, { recursive: true });
		await checkCompanyKeyFiles(db, await copy.load(), now);
		await stop();
		expect(announced).toEqual(['2']);
	});
});

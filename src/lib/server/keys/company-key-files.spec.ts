import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingLogger } from '$test-support/loggers';
import { initCrypto } from '../../crypto/index';
import { CompanyKeyFiles } from './company-key-files';
import { initCompanyKeys, KEY_FILES, rotateCompanyKeys } from './files';

describe('the company key files of a running server (docs/operations.md)', () => {
	it('reads the files again after a rotation made elsewhere, and keeps the working keys while they are damaged', async () => {
		await initCrypto();
		const dir = join(mkdtempSync(join(tmpdir(), 'company-keys-')), 'keys');
		await initCompanyKeys(dir);
		const { log, lines } = recordingLogger();
		const files = await CompanyKeyFiles.open(dir, log);
		const first = files.loaded;
		expect(first.current.keyVersion).toBe(1);
		expect(await files.current()).toBe(first);
		expect(lines).toEqual([]);

		await rotateCompanyKeys(dir);
		const rotated = await files.current();
		expect([rotated.current.keyVersion, rotated.previous.map((pair) => pair.keyVersion)]).toEqual([2, [1]]);
		expect(files.loaded).toBe(rotated);
		expect(await files.current()).toBe(rotated);
		expect(lines).toEqual([{ level: 'info', message: 'company keys read again', fields: { companyKeyVersion: 2, previous: 1 } }]);

		await writeFile(join(dir, KEY_FILES.publicKey), 'not a key\n');
		expect(await files.current()).toBe(rotated);
		expect(lines.at(-1)).toMatchObject({ level: 'warn', message: 'company keys could not be read again; the loaded ones stay in use' });
		expect(String(lines.at(-1)?.fields?.reason)).toMatch(/\S/);
	});
});

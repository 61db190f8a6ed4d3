/**
 * The company key files as the server uses them (contract 2.1, docs/operations.md): loaded and checked
 * at start, read again whenever the directory or the current public key changed, so a rotation made
 * by another process takes effect at once. A damaged or half-written directory keeps the keys that
 * worked until it reads cleanly again.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorText, type Logger } from '../log';
import { KEY_FILES, loadCompanyKeys, type CompanyKeys } from './files';

export class CompanyKeyFiles {
	private constructor(
		private readonly keysDir: string,
		private readonly log: Logger,
		private keys: CompanyKeys,
		private keysSeen: string
	) {}

	/** Reads the key files; a missing or invalid one fails the start (KeyFileError). */
	static async open(keysDir: string, log: Logger): Promise<CompanyKeyFiles> {
		const keys = await loadCompanyKeys(keysDir);
		return new CompanyKeyFiles(keysDir, log, keys, await CompanyKeyFiles.version(keysDir));
	}

	/** What changes when a key is written: the directory and the current public key file. */
	private static async version(keysDir: string): Promise<string> {
		const [directory, current] = await Promise.all([stat(keysDir), stat(join(keysDir, KEY_FILES.publicKey))]);
		return `${directory.mtimeMs}:${current.mtimeMs}:${current.ino}`;
	}

	/** The keys read last, without looking at the disk. */
	get loaded(): CompanyKeys {
		return this.keys;
	}

	/** The company keys as on disk now. */
	async current(): Promise<CompanyKeys> {
		const seen = await CompanyKeyFiles.version(this.keysDir).catch(() => this.keysSeen);
		if (seen === this.keysSeen) return this.keys;
		try {
			this.keys = await loadCompanyKeys(this.keysDir);
			this.keysSeen = seen;
			this.log.info('company keys read again', { companyKeyVersion: this.keys.current.keyVersion, previous: this.keys.previous.length });
		} catch (error) {
			// Mid-rotation or damaged: keep the keys that worked, and try again next time.
			this.log.warn('company keys could not be read again; the loaded ones stay in use', { reason: errorText(error) });
		}
		return this.keys;
	}
}

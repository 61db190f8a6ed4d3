/**
 * The company key every process uses (docs/operations.md "Several processes"): the key files must be the
 * same on every machine, so the database records the current key's version and fingerprint. A process
 * whose files are behind or differ refuses to start, naming what to copy; a rotation recorded by another
 * process is announced (NOTIFY) so that a process whose files did not follow says so at once.
 */
import { fingerprintB64u } from '../../crypto/keys';
import type { Queryable } from '../db/database';
import { KeyFileError, type CompanyKeys } from './files';

export const COMPANY_KEY_CHANNEL = 'inbox_company_key';

interface KeyRow {
	key_version: number;
	fingerprint: string;
}

/** Why these key files are not the ones the other processes use, or null when they are. */
export async function companyKeyMismatch(db: Queryable, keys: CompanyKeys): Promise<string | null> {
	const [row] = await db.query<KeyRow>('select key_version, fingerprint from company_key_state where id = 1');
	if (!row) return null;
	const { keyVersion, publicKey } = keys.current;
	if (row.key_version > keyVersion) {
		return `the company key files here are at version ${keyVersion}, the other inbox processes use version ${row.key_version} (fingerprint ${row.fingerprint}): copy DATA_DIR/keys from the machine where the key was rotated`;
	}
	if (row.key_version === keyVersion && row.fingerprint !== fingerprintB64u(publicKey)) {
		return `public.key (version ${keyVersion}) is not the one the other inbox processes use (fingerprint ${row.fingerprint}): every machine needs the same DATA_DIR/keys`;
	}
	return null;
}

/** Records the files' current key when it is newer than the recorded one, and announces it. */
export async function recordCompanyKey(db: Queryable, keys: CompanyKeys, now: Date): Promise<void> {
	const { keyVersion, publicKey } = keys.current;
	const rows = await db.query(
		`insert into company_key_state (id, key_version, fingerprint, updated_at) values (1, $1, $2, $3)
		 on conflict (id) do update set key_version = excluded.key_version, fingerprint = excluded.fingerprint, updated_at = excluded.updated_at
		 where company_key_state.key_version < excluded.key_version
		 returning key_version`,
		[keyVersion, fingerprintB64u(publicKey), now]
	);
	if (rows.length) await db.query('select pg_notify($1, $2)', [COMPANY_KEY_CHANNEL, String(keyVersion)]);
}

/** At start: refuses key files that are not the cluster's (KeyFileError), and records newer ones. */
export async function checkCompanyKeyFiles(db: Queryable, keys: CompanyKeys, now: Date): Promise<void> {
	const mismatch = await companyKeyMismatch(db, keys);
	if (mismatch) throw new KeyFileError(mismatch);
	await recordCompanyKey(db, keys, now);
}

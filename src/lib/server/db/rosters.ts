/**
 * The rosters this inbox uploaded or found at the service (contract 2.9, 6.7): every accepted version,
 * its agents in statement order, the signature and who uploaded it. Public material only.
 */
import type { RosterAgent } from '../../crypto/index';
import type { Queryable } from './database';

export interface StoredRoster {
	rosterVersion: number;
	issuedAt: string;
	agents: RosterAgent[];
	signature: string;
	/** The uploading admin; null for a roster found at the service (uploaded by another tool). */
	uploadedBy: string | null;
	uploadedAt: Date;
}

interface RosterRow {
	roster_version: number;
	issued_at: string;
	agents: RosterAgent[];
	signature: string;
	uploaded_by: string | null;
	uploaded_at: Date;
}

const toRoster = (row: RosterRow): StoredRoster => ({
	rosterVersion: row.roster_version,
	issuedAt: row.issued_at,
	agents: row.agents,
	signature: row.signature,
	uploadedBy: row.uploaded_by,
	uploadedAt: new Date(row.uploaded_at)
});

/** Newest first. */
export async function listRosters(db: Queryable, limit = 100): Promise<StoredRoster[]> {
	const rows = await db.query<RosterRow>('select * from roster_versions order by roster_version desc limit $1', [limit]);
	return rows.map(toRoster);
}

export async function latestStoredRoster(db: Queryable): Promise<StoredRoster | null> {
	return (await listRosters(db, 1))[0] ?? null;
}

/** Keeps an accepted roster; a version already kept stays as it is. True when this call kept it. */
export async function storeRoster(db: Queryable, roster: StoredRoster): Promise<boolean> {
	const rows = await db.query(
		`insert into roster_versions (roster_version, issued_at, agents, signature, uploaded_by, uploaded_at)
		 values ($1, $2, $3, $4, $5, $6) on conflict (roster_version) do nothing returning roster_version`,
		[roster.rosterVersion, roster.issuedAt, JSON.stringify(roster.agents), roster.signature, roster.uploadedBy, roster.uploadedAt]
	);
	return rows.length > 0;
}

/**
 * The next agent roster as the admin page prepares it (contract 2.9, 6.7): version = previous + 1 (the
 * previous being the service's roster that does not verify, when it serves a later one: docs/inbox-api.md
 * "The roster"), `issuedAt` now in the exact format, the active agents the server lists; the difference
 * against the latest accepted roster, so the admin sees who gains or loses access before signing; and
 * the exact upload body. Pure functions: the statement itself is built by the crypto core in the worker.
 */
import { isoSeconds } from '../crypto/rules';
import type { RosterInput } from '../crypto/roster';
import type { RosterEntry, RosterOverview, RosterView, SignedRosterUpload } from './admin';

/** The roster to sign: the server's proposal of the next version, issued `now`. */
export interface RosterDraft extends RosterInput {
	/** The same agents with the names the admin recognises them by. */
	entries: RosterEntry[];
}

export function draftNextRoster(overview: RosterOverview, now: Date = new Date()): RosterDraft {
	// The service takes the version after the one it holds, verified or not.
	const previous = Math.max(overview.latest?.rosterVersion ?? 0, overview.unverifiedAtService?.rosterVersion ?? 0);
	if (overview.next.rosterVersion !== previous + 1) {
		throw new Error(
			`the server proposes roster version ${overview.next.rosterVersion} after version ${previous}; reload the page before signing`
		);
	}
	return {
		companyId: overview.next.companyId,
		rosterVersion: overview.next.rosterVersion,
		issuedAt: isoSeconds(now),
		agents: overview.next.agents.map(({ agentKeyId, publicKey }) => ({ agentKeyId, publicKey })),
		entries: overview.next.agents
	};
}

export interface KeyChange {
	before: RosterEntry;
	after: RosterEntry;
}

export interface RosterDiff {
	/** New readers: they receive wraps for new conversations, and grants for earlier ones. */
	added: RosterEntry[];
	/** They receive no wrap for new conversations; keys already delivered stay with them. */
	removed: RosterEntry[];
	/** The same person (or the same key id) with another public key. */
	keyChanged: KeyChange[];
	unchanged: RosterEntry[];
}

/**
 * Compares the next roster with the latest accepted one. An entry is matched by `agentKeyId`, else by
 * the account it belongs to (an agent who reset their key has a new id): a match with another public
 * key is a key change, not an addition and a removal.
 */
export function diffRosters(latest: readonly RosterEntry[], next: readonly RosterEntry[]): RosterDiff {
	const diff: RosterDiff = { added: [], removed: [], keyChanged: [], unchanged: [] };
	const unmatched = new Map(latest.map((entry) => [entry.agentKeyId, entry]));
	const byAccount = new Map(latest.filter((entry) => entry.accountId !== null).map((entry) => [entry.accountId, entry]));
	const matchedIds = new Set<string>();
	for (const after of next) {
		let before = unmatched.get(after.agentKeyId);
		if (!before && after.accountId !== null) {
			const sameAccount = byAccount.get(after.accountId);
			// an entry of the account that is still in the next roster under its own id is not this one's predecessor
			if (sameAccount && !next.some((entry) => entry.agentKeyId === sameAccount.agentKeyId)) before = sameAccount;
		}
		if (!before || matchedIds.has(before.agentKeyId)) {
			diff.added.push(after);
			continue;
		}
		matchedIds.add(before.agentKeyId);
		unmatched.delete(before.agentKeyId);
		if (before.agentKeyId === after.agentKeyId && before.publicKey === after.publicKey) diff.unchanged.push(after);
		else diff.keyChanged.push({ before, after });
	}
	diff.removed = [...unmatched.values()];
	return diff;
}

/** True when signing would change nothing but the version and date. */
export function isSameRoster(diff: RosterDiff): boolean {
	return diff.added.length === 0 && diff.removed.length === 0 && diff.keyChanged.length === 0;
}

/** The body of `POST /api/admin/roster`: the signed fields and nothing else. */
export function rosterUpload(draft: RosterDraft, signature: string): SignedRosterUpload {
	return {
		rosterVersion: draft.rosterVersion,
		issuedAt: draft.issuedAt,
		agents: draft.agents.map(({ agentKeyId, publicKey }) => ({ agentKeyId, publicKey })),
		signature
	};
}

/** The entries of an accepted roster (empty before the first). */
export function entriesOf(roster: RosterView | null): RosterEntry[] {
	return roster?.agents ?? [];
}

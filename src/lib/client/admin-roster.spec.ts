import { describe, expect, it } from 'vitest';
import { initCrypto } from '../crypto/sodium';
import { rosterStatement } from '../crypto/roster';
import type { RosterEntry, RosterOverview, RosterView } from './admin';
import { diffRosters, draftNextRoster, isSameRoster, rosterUpload } from './admin-roster';

const key = (n: number) => Buffer.alloc(32, n).toString('base64url');
const entry = (id: string, n: number, accountId: string | null = `acc_${id}`): RosterEntry => ({
	agentKeyId: `agk_${id.padEnd(8, 'x')}`,
	publicKey: key(n),
	accountId,
	displayName: id
});

function accepted(version: number, agents: RosterEntry[]): RosterView {
	return {
		rosterVersion: version,
		issuedAt: '2026-01-01T00:00:00Z',
		agents,
		signature: 'sig',
		uploadedAt: '2026-01-01T00:00:01Z',
		uploadedBy: null,
		uploadedByName: null
	};
}

function overview(latest: RosterView | null, nextVersion: number, agents: RosterEntry[]): RosterOverview {
	return {
		latest,
		unverifiedAtService: null,
		history: latest ? [latest] : [],
		next: { rosterVersion: nextVersion, companyId: 'cmp_company01', agents }
	};
}

describe('draftNextRoster', () => {
	it('takes version previous + 1, issuedAt now to the second, and the proposed agents', async () => {
		const agents = [entry('ada', 1), entry('bob', 2)];
		const draft = draftNextRoster(overview(accepted(4, []), 5, agents), new Date('2026-03-04T05:06:07.890Z'));
		expect(draft).toMatchObject({ companyId: 'cmp_company01', rosterVersion: 5, issuedAt: '2026-03-04T05:06:07Z' });
		expect(draft.agents).toEqual(agents.map(({ agentKeyId, publicKey }) => ({ agentKeyId, publicKey })));
		await initCrypto();
		expect(rosterStatement(draft)).toBe(
			`Service|v1|agent-roster|cmp_company01|5|2026-03-04T05:06:07Z|${agents[0].agentKeyId}:${key(1)},${agents[1].agentKeyId}:${key(2)}`
		);
	});

	it('starts at version 1 and allows an empty roster', () => {
		const draft = draftNextRoster(overview(null, 1, []));
		expect(draft.rosterVersion).toBe(1);
		expect(draft.agents).toEqual([]);
	});

	it('refuses a proposal that is not previous + 1', () => {
		expect(() => draftNextRoster(overview(accepted(4, []), 7, []))).toThrow(/version 7 after version 4/);
		expect(() => draftNextRoster(overview(null, 2, []))).toThrow(/version 2 after version 0/);
	});

	it('follows a later roster the service serves that does not verify, the version the service takes next', () => {
		const serving = (nextVersion: number, servedVersion: number): RosterOverview => ({
			...overview(accepted(4, []), nextVersion, []),
			unverifiedAtService: { rosterVersion: servedVersion, reason: 'SIGNATURE_INVALID: the signature does not verify' }
		});
		expect(draftNextRoster(serving(8, 7)).rosterVersion).toBe(8);
		expect(() => draftNextRoster(serving(5, 7))).toThrow(/version 5 after version 7/);
		expect(draftNextRoster(serving(5, 2)).rosterVersion).toBe(5);
		expect(() => draftNextRoster(serving(3, 2))).toThrow(/version 3 after version 4/);
	});
});

describe('diffRosters', () => {
	it('sorts entries into added, removed, key changed and unchanged', () => {
		const ada = entry('ada', 1);
		const bob = entry('bob', 2);
		const cleo = entry('cleo', 3);
		const bobNewKeySameId = { ...bob, publicKey: key(9) };
		const diff = diffRosters([ada, bob], [bobNewKeySameId, cleo]);
		expect(diff.added).toEqual([cleo]);
		expect(diff.removed).toEqual([ada]);
		expect(diff.keyChanged).toEqual([{ before: bob, after: bobNewKeySameId }]);
		expect(diff.unchanged).toEqual([]);
		expect(isSameRoster(diff)).toBe(false);
	});

	it('sees a reset key (new id, same account) as a key change', () => {
		const before = entry('dora', 4, 'acc_dora');
		const after = { ...entry('dora2', 5, 'acc_dora') };
		const diff = diffRosters([before], [after]);
		expect(diff.keyChanged).toEqual([{ before, after }]);
		expect(diff.added).toEqual([]);
		expect(diff.removed).toEqual([]);
	});

	it('does not pair an entry with another that stays in the roster under its own id', () => {
		const first = entry('eve', 6, 'acc_eve');
		const second = entry('eve2', 7, 'acc_eve');
		const diff = diffRosters([first], [first, second]);
		expect(diff.unchanged).toEqual([first]);
		expect(diff.added).toEqual([second]);
	});

	it('finds nothing to change in the same roster, and handles entries without an account', () => {
		const orphan = entry('orphan', 8, null);
		const diff = diffRosters([orphan, entry('ada', 1)], [orphan, entry('ada', 1)]);
		expect(diff.unchanged).toHaveLength(2);
		expect(isSameRoster(diff)).toBe(true);
	});
});

describe('rosterUpload', () => {
	it('carries exactly the signed fields', () => {
		const draft = draftNextRoster(overview(null, 1, [entry('ada', 1)]), new Date('2026-03-04T05:06:07Z'));
		expect(rosterUpload(draft, 'c2ln')).toStrictEqual({
			rosterVersion: 1,
			issuedAt: '2026-03-04T05:06:07Z',
			agents: [{ agentKeyId: entry('ada', 1).agentKeyId, publicKey: key(1) }],
			signature: 'c2ln'
		});
	});
});

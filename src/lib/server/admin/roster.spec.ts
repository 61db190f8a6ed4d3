import { describe, expect, it } from 'vitest';
import type { Account } from '../db/accounts';
import { nextRosterAgents, readRosterBody, rosterView } from './roster';

const body = () => ({
	rosterVersion: 3,
	issuedAt: '2026-11-22T10:00:00Z',
	agents: [{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A' }],
	signature: 'SIG'
});

function account(accountId: string, fields: Partial<Account> = {}): Account {
	return {
		accountId,
		username: accountId,
		displayName: `Name of ${accountId}`,
		role: 'agent',
		agentKeyId: null,
		agentPublicKey: null,
		createdAt: new Date(0),
		disabledAt: null,
		...fields
	};
}

describe('the roster an admin uploads (contract 2.9, 6.7; docs/contract-gaps.md)', () => {
	it('keeps exactly the roster’s fields', () => {
		expect(readRosterBody(body())).toEqual(body());
	});

	it('refuses unknown or missing fields, agents that are not a list of objects, naming where', () => {
		const cases: [Record<string, unknown>, string][] = [
			[{ ...body(), companyId: 'cmp_x', extra: 1 }, 'the roster has fields the roster does not know: companyId, extra'],
			[{ ...body(), signature: undefined }, 'signature is required'],
			[{ ...body(), rosterVersion: undefined }, 'rosterVersion is required'],
			[{ ...body(), agents: 'agk_aaaaaaaa' }, 'agents must be a list'],
			[{ ...body(), agents: [{ agentKeyId: 'agk_a', publicKey: 'P' }, null] }, 'agents[1] must be an object'],
			[{ ...body(), agents: [['agk_a', 'P']] }, 'agents[0] must be an object'],
			[{ ...body(), agents: ['agk_a'] }, 'agents[0] must be an object'],
			[
				{ ...body(), agents: [{ agentKeyId: 'agk_a', publicKey: 'P', role: 'admin' }] },
				'agents[0] has fields the roster does not know: role'
			]
		];
		for (const [value, message] of cases) {
			expect(() => readRosterBody(value), message).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', status: 400, message }));
		}
	});
});

describe('roster views', () => {
	it('name each listed key’s account only when both its id and its public key match', () => {
		const roster = {
			rosterVersion: 2,
			issuedAt: '2026-11-22T10:00:00Z',
			agents: [
				{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A' },
				{ agentKeyId: 'agk_bbbbbbbb', publicKey: 'PK_OLD' },
				{ agentKeyId: 'agk_cccccccc', publicKey: 'PK_C' }
			],
			signature: 'SIG',
			uploadedBy: 'acc_admin',
			uploadedAt: new Date('2026-11-22T10:00:01.500Z')
		};
		const accounts = [
			account('acc_a', { agentKeyId: 'agk_aaaaaaaa', agentPublicKey: 'PK_A' }),
			account('acc_b', { agentKeyId: 'agk_bbbbbbbb', agentPublicKey: 'PK_NEW' }),
			account('acc_nokey')
		];
		expect(rosterView(roster, accounts)).toEqual({
			rosterVersion: 2,
			issuedAt: '2026-11-22T10:00:00Z',
			agents: [
				{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A', accountId: 'acc_a', displayName: 'Name of acc_a' },
				{ agentKeyId: 'agk_bbbbbbbb', publicKey: 'PK_OLD', accountId: null, displayName: null },
				{ agentKeyId: 'agk_cccccccc', publicKey: 'PK_C', accountId: null, displayName: null }
			],
			signature: 'SIG',
			uploadedAt: '2026-11-22T10:00:01Z',
			uploadedBy: 'acc_admin'
		});
	});

	it('the next roster holds the active agents with a key, in byte order of their key ids', () => {
		const accounts = [
			account('acc_b', { agentKeyId: 'agk_bbbbbbbb', agentPublicKey: 'PK_B' }),
			account('acc_upper', { agentKeyId: 'agk_Zzzzzzzz', agentPublicKey: 'PK_Z' }),
			account('acc_a', { agentKeyId: 'agk_aaaaaaaa', agentPublicKey: 'PK_A' }),
			account('acc_disabled', { agentKeyId: 'agk_dddddddd', agentPublicKey: 'PK_D', disabledAt: new Date(1) }),
			account('acc_nokey'),
			account('acc_idonly', { agentKeyId: 'agk_eeeeeeee' }),
			account('acc_admin', { role: 'admin', agentKeyId: 'agk_cccccccc', agentPublicKey: 'PK_C' })
		];
		expect(nextRosterAgents(accounts)).toEqual([
			{ agentKeyId: 'agk_Zzzzzzzz', publicKey: 'PK_Z', accountId: 'acc_upper', displayName: 'Name of acc_upper' },
			{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A', accountId: 'acc_a', displayName: 'Name of acc_a' },
			{ agentKeyId: 'agk_bbbbbbbb', publicKey: 'PK_B', accountId: 'acc_b', displayName: 'Name of acc_b' },
			{ agentKeyId: 'agk_cccccccc', publicKey: 'PK_C', accountId: 'acc_admin', displayName: 'Name of acc_admin' }
		]);
		expect(nextRosterAgents([...accounts].reverse())).toEqual(nextRosterAgents(accounts));
	});
});

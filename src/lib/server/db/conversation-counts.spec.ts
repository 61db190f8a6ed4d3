/**
 * The list's service-target counts (docs/inbox-api.md §4 "Counts", docs/service-targets.md "In the
 * inbox"): at the moment asked, each account counts what the page counts from the rows the list gives it
 * — the page's own functions over `listConversationViews` are the measure, in calendar time and in
 * business hours — so a label the account may not read sets no deadline, a closed, snoozed or resolved
 * conversation has none, a deadline is measured from the times to the second, and no targets count nothing.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { countServiceViews, dueByConversation } from '../../client/service-due';
import { targetPolicy, type ServiceTargets } from '../../service-targets/targets';
import type { BusinessHours } from '../../service-targets/business-hours';
import { changeTeamState } from '../conversations/lifecycle';
import { createLabel, setConversationLabels } from '../conversations/labels';
import { createAccount, registerAgentKey, type Account } from './accounts';
import { countConversationViews } from './conversation-counts';
import { ensureConversation, listConversationViews, updateStatus } from './conversations';
import type { Database } from './database';
import { claimAuthorship } from './message-authors';
import { storeAgentWraps, storeMessage } from './messages';
import { readSettings, updateSettings } from './settings';

const MINUTE = 60_000;
/** A Monday, 11:00:00.5 in Berlin: half a second past a whole second, so rounding to the second shows. */
const NOW = Date.parse('2026-03-02T10:00:00.500Z');
const ago = (minutes: number) => new Date(NOW - minutes * MINUTE);

const HOURS: BusinessHours = {
	timeZone: 'Europe/Berlin',
	week: [...Array(5).fill({ open: '09:00', close: '17:00' }), null, null],
	holidays: []
};

interface Seeded {
	admin: Account;
	/** Reads every conversation but `conv_hidden`. */
	agent: Account;
	/** Reads none. */
	outsider: Account;
	urgent: string;
}

/** A conversation begun at `first` with the customer's first message, answered `repliedAgo` minutes ago when given. */
async function begin(db: Database, agent: Account, conversationId: string, first: Date, repliedAgo?: number): Promise<void> {
	await ensureConversation(db, conversationId, 'active', first);
	await storeMessage(
		db,
		{
			messageId: `msg_${conversationId}`,
			conversationId,
			seq: 1,
			senderType: 'user',
			contentType: 'text',
			encryption: {} as never,
			attachment: null,
			createdAt: first.toISOString()
		},
		null
	);
	if (repliedAgo !== undefined)
		await claimAuthorship(db, { conversationId, clientMessageId: `cm_${conversationId}` }, agent, ago(repliedAgo));
}

async function seed(db: Database): Promise<Seeded> {
	const account = (username: string, role: 'admin' | 'agent') =>
		createAccount(db, { username, displayName: username, role, passwordHash: 'x' }, ago(10_000));
	const admin = await account('ann', 'admin');
	const agent = await registerAgentKey(
		db,
		{ accountId: (await account('bob', 'agent')).accountId, agentKeyId: 'agk_bob', publicKey: 'PK_bob', replace: false },
		ago(10_000)
	);
	const outsider = await account('eve', 'agent');
	await db.query(`insert into roster_versions (roster_version, issued_at, agents, signature, uploaded_at) values (1, $1, $2, 'S', $3)`, [
		ago(10_000).toISOString(),
		JSON.stringify([{ agentKeyId: 'agk_bob', publicKey: 'PK_bob' }]),
		ago(10_000)
	]);
	const deps = { db, now: () => NOW };
	const { labelId: urgent } = await createLabel(deps, { name: 'Urgent', color: 'red' });

	await begin(db, agent, 'conv_breaching', ago(90));
	await begin(db, agent, 'conv_overdue', ago(180));
	await begin(db, agent, 'conv_on_track', ago(10));
	// answered; its resolution is due in half an hour
	await begin(db, agent, 'conv_resolving', ago(23.5 * 60), 23 * 60);
	// due 0.2 s from now to the millisecond, but its row says 10:00:00 and the page measures from that: overdue
	await begin(db, agent, 'conv_second', new Date(NOW - 120 * MINUTE + 200));
	await begin(db, agent, 'conv_urgent', ago(20));
	await begin(db, agent, 'conv_hidden', ago(20));
	for (const conversationId of ['conv_urgent', 'conv_hidden']) await setConversationLabels(deps, admin, conversationId, [urgent]);
	for (const conversationId of ['conv_closed', 'conv_snoozed', 'conv_resolved']) await begin(db, agent, conversationId, ago(180));
	await updateStatus(db, 'conv_closed', { status: 'closed' }, ago(5));
	await changeTeamState(deps, admin, 'conv_snoozed', { state: 'snoozed', snoozedUntil: new Date(NOW + 60 * MINUTE) });
	await changeTeamState(deps, admin, 'conv_resolved', { state: 'resolved', snoozedUntil: null });

	const { views } = await listConversationViews(db, admin, { limit: 200 });
	for (const { conversationId } of views.filter((view) => view.conversationId !== 'conv_hidden')) {
		await storeAgentWraps(db, conversationId, [{ agentKeyId: 'agk_bob', rosterVersion: 1, wrap: { keyVersion: 1, sealed: 'S' } }], ago(1));
	}
	return { admin, agent, outsider, urgent };
}

describe.each(BACKENDS)('the service-target counts on %s', (backend) => {
	const databases = useDatabases(backend);

	it('count at the moment asked what the page counts from the rows the list gives each account', async () => {
		const db = await databases.open();
		const { admin, agent, outsider, urgent } = await seed(db);
		const service = async (account: Account, status?: 'active' | 'closed') =>
			(await countConversationViews(db, account, { status }, new Date(NOW))).service;
		/** What the page counts from the rows of the list with the team's settings now. */
		const pageCounts = async (account: Account, status?: 'active' | 'closed') => {
			const settings = await readSettings(db);
			const { views } = await listConversationViews(db, account, { status, limit: 200 });
			return countServiceViews(dueByConversation(views, targetPolicy(settings.serviceTargets, settings.businessHours)), NOW);
		};
		const everyone = [admin, agent, outsider];

		for (const account of everyone) expect(await service(account)).toEqual({ breaching: 0, overdue: 0 });

		const targets: ServiceTargets = {
			firstResponseMinutes: 120,
			resolutionMinutes: 24 * 60,
			businessHoursOnly: false,
			byLabel: { [urgent]: { firstResponseMinutes: 15 } }
		};
		await updateSettings(db, { serviceTargets: targets, businessHours: HOURS }, admin, new Date(NOW));
		// breaching: conv_breaching, conv_resolving; overdue: conv_overdue, conv_second, and the urgent ones the account reads
		expect(await service(admin)).toEqual({ breaching: 2, overdue: 4 });
		expect(await service(agent)).toEqual({ breaching: 2, overdue: 3 });
		expect(await service(outsider)).toEqual({ breaching: 2, overdue: 2 });
		expect(await service(admin, 'closed')).toEqual({ breaching: 0, overdue: 0 });
		for (const account of everyone) {
			expect(await service(account)).toEqual(await pageCounts(account));
			expect(await service(account, 'active')).toEqual(await pageCounts(account, 'active'));
		}

		await updateSettings(db, { serviceTargets: { ...targets, businessHoursOnly: true } }, admin, new Date(NOW));
		// a day to resolve is three working days now: conv_resolving is no longer due within the hour
		const inBusinessHours = await Promise.all(everyone.map((account) => service(account)));
		expect(inBusinessHours).toEqual([
			{ breaching: 1, overdue: 4 },
			{ breaching: 1, overdue: 3 },
			{ breaching: 1, overdue: 2 }
		]);
		expect(inBusinessHours).toEqual(await Promise.all(everyone.map((account) => pageCounts(account))));

		await updateSettings(db, { serviceTargets: null }, admin, new Date(NOW));
		for (const account of everyone) expect(await service(account)).toEqual({ breaching: 0, overdue: 0 });
	});
});

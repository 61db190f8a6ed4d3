import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { random } from '$test-support/random';
import { FIRST_RESPONSE_BUCKETS, RANGE_FIGURES, type ReportFigures } from '../../inbox-api/reports';
import { createAccount, type Account } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import type { Database } from '../db/database';
import { claimAuthorship } from '../db/message-authors';
import { storeMessage } from '../db/messages';
import { updateSettings } from '../db/settings';
import { assignOnFirstReply } from '../conversations/assignment';
import { createLabel, setConversationLabels } from '../conversations/labels';
import { createTeam, setConversationTeam } from '../conversations/teams';
import { changeTeamState, reopenOnCustomerMessages, wakeSnoozed } from '../conversations/lifecycle';
import { listReportConversations } from './drilldown';
import { buildTeamReport } from './report';

/** What the spec did, in order: the report's figures are computed from this log alone, in plain code. */
type Step =
	| { at: number; conversation: string; kind: 'open' }
	| { at: number; conversation: string; kind: 'in' }
	| { at: number; conversation: string; kind: 'out'; agent: string | null }
	| { at: number; conversation: string; kind: 'resolve' | 'reopen' | 'snooze'; agent: string }
	| { at: number; conversation: string; kind: 'wake' };

const HOUR = 3600_000;
const RANGE = { from: '2026-02-01', to: '2026-03-01', timeZone: 'Europe/Berlin' };
// Berlin is UTC+1 in February
const FROM = Date.parse('2026-01-31T23:00:00Z');
const TO = Date.parse('2026-02-28T23:00:00Z');
const inRange = (at: number) => at >= FROM && at < TO;

/** The plan of 40 conversations from mid-January to mid-March: replies, resolutions, reopenings and snoozes. */
function plan(agents: readonly string[]): Step[] {
	const next = random(7);
	const steps: Step[] = [];
	for (let index = 0; index < 40; index++) {
		const conversation = `conv_${String(index).padStart(2, '0')}`;
		let at = Date.parse('2026-01-20T00:00:00Z') + Math.floor(next() * 45 * 24) * HOUR + Math.floor(next() * 3600) * 1000;
		const agent = () => agents[Math.floor(next() * agents.length)];
		const gap = () => (at += Math.floor(1 + next() * 30 * 3600) * 1000);
		steps.push({ at, conversation, kind: 'open' });
		if (index % 9 === 4) steps.push({ at: gap(), conversation, kind: 'out', agent: agent() });
		for (let turn = 0, turns = 1 + Math.floor(next() * 4); turn < turns; turn++) {
			steps.push({ at: gap(), conversation, kind: 'in' });
			if (next() < 0.15) steps.push({ at: gap(), conversation, kind: 'out', agent: null });
			if (next() < 0.85) steps.push({ at: gap(), conversation, kind: 'out', agent: agent() });
			const ending = next();
			if (ending < 0.45) steps.push({ at: gap(), conversation, kind: 'resolve', agent: agent() });
			else if (ending < 0.55)
				steps.push({ at: gap(), conversation, kind: 'snooze', agent: agent() }, { at: gap(), conversation, kind: 'wake' });
			if (ending < 0.45 && next() < 0.3) steps.push({ at: gap(), conversation, kind: 'reopen', agent: agent() });
		}
	}
	return steps.sort((a, b) => a.at - b.at || a.conversation.localeCompare(b.conversation));
}

/** Random bytes in place of every ciphertext: the server must not need them. */
const noise = (bytes: number) => randomBytes(bytes).toString('base64url');

async function apply(db: Database, accounts: ReadonlyMap<string, Account>, step: Step, serial: number): Promise<void> {
	const now = new Date(step.at);
	const deps = { db, now: () => step.at };
	const id = step.conversation;
	if (step.kind === 'open') await ensureConversation(db, id, 'active', now);
	else if (step.kind === 'in' || step.kind === 'out') {
		const clientMessageId = `cm_${serial}`;
		const message = {
			messageId: `msg_${serial}`,
			conversationId: id,
			seq: serial,
			senderType: step.kind === 'in' ? 'user' : 'company',
			contentType: 'text',
			encryption: { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId, nonce: noise(24), ciphertext: noise(300) },
			attachment: null,
			createdAt: now.toISOString()
		} as const;
		await db.transaction(async (tx) => {
			await storeMessage(tx, message, null);
			if (step.kind === 'in') await reopenOnCustomerMessages(tx, [id], now);
			else if (step.agent) {
				await claimAuthorship(tx, { conversationId: id, clientMessageId }, accounts.get(step.agent)!, now);
				await assignOnFirstReply(tx, accounts.get(step.agent)!, id, now);
			}
		});
	} else if (step.kind === 'wake') await wakeSnoozed(db, now);
	else {
		const state = ({ resolve: 'resolved', reopen: 'open', snooze: 'snoozed' } as const)[step.kind];
		const snoozedUntil = step.kind === 'snooze' ? new Date(step.at + 1000) : null;
		await changeTeamState(deps, accounts.get(step.agent)!, id, { state, snoozedUntil });
	}
}

/** The median and 90th percentile as percentile_cont defines them: interpolated between the two nearest. */
function percentileOf(values: readonly number[], fraction: number): number | null {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	const position = fraction * (sorted.length - 1);
	const below = Math.floor(position);
	return sorted[below] + (sorted[Math.min(below + 1, sorted.length - 1)] - sorted[below]) * (position - below);
}

interface Fact {
	kind: string;
	conversation: string;
	agent: string | null;
	at: number;
	seconds?: number;
}

/** The facts of the range, from the plan alone, as docs/reports.md defines them. */
function expectedFacts(steps: readonly Step[]): Fact[] {
	const created = new Map<string, number>();
	const assignee = new Map<string, string>();
	const state = new Map<string, string>();
	const firstIn = new Map<string, number>();
	const answered = new Set<string>();
	const facts: Fact[] = [];
	for (const step of steps) {
		const c = step.conversation;
		if (step.kind === 'open') created.set(c, step.at);
		if (step.kind === 'out' && step.agent && !assignee.has(c)) assignee.set(c, step.agent);
		if (step.kind === 'in' && !firstIn.has(c)) firstIn.set(c, step.at);
		if (step.kind === 'out' && step.agent && firstIn.has(c) && !answered.has(c)) {
			answered.add(c);
			facts.push({ kind: 'first_response', conversation: c, agent: step.agent, at: step.at, seconds: (step.at - firstIn.get(c)!) / 1000 });
		}
		if (step.kind === 'in' && (state.get(c) ?? 'open') !== 'open')
			facts.push({ kind: 'reopened', conversation: c, agent: 'assignee', at: step.at });
		if (step.kind === 'in' || step.kind === 'wake' || step.kind === 'reopen') state.set(c, 'open');
		if (step.kind === 'resolve') {
			facts.push({ kind: 'resolved', conversation: c, agent: step.agent, at: step.at, seconds: (step.at - created.get(c)!) / 1000 });
			state.set(c, 'resolved');
		}
		if (step.kind === 'reopen') facts.push({ kind: 'reopened', conversation: c, agent: step.agent, at: step.at });
		if (step.kind === 'snooze') state.set(c, 'snoozed');
		if (step.kind === 'in') facts.push({ kind: 'message_in', conversation: c, agent: 'assignee', at: step.at });
		if (step.kind === 'out' && step.agent) facts.push({ kind: 'message_out', conversation: c, agent: step.agent, at: step.at });
	}
	for (const [c, at] of created) facts.push({ kind: 'opened', conversation: c, agent: 'assignee', at });
	// what counts for the assignee counts for the one there is now
	return facts
		.map((fact) => (fact.agent === 'assignee' ? { ...fact, agent: assignee.get(fact.conversation) ?? null } : fact))
		.filter((fact) => inRange(fact.at));
}

function expectedFigures(facts: readonly Fact[]): ReportFigures {
	const count = (kind: string) => facts.filter((fact) => fact.kind === kind).length;
	const seconds = (kind: string) => facts.filter((fact) => fact.kind === kind).map((fact) => fact.seconds!);
	const spread = (kind: string) => ({
		count: count(kind),
		median: percentileOf(seconds(kind), 0.5),
		p90: percentileOf(seconds(kind), 0.9)
	});
	const limits = [0, 1, 4, 8, 24, Infinity].map((hours) => hours * 3600);
	return {
		opened: count('opened'),
		resolved: count('resolved'),
		reopened: count('reopened'),
		messagesIn: count('message_in'),
		messagesOut: count('message_out'),
		firstResponse: spread('first_response'),
		resolution: spread('resolved'),
		firstResponseBuckets: FIRST_RESPONSE_BUCKETS.map(({ bucket }, index) => ({
			bucket,
			count: seconds('first_response').filter((value) => value >= limits[index] && value < limits[index + 1]).length
		}))
	};
}

/** Weekday (0 = Monday) and hour of a time in Berlin, by Intl rather than by the database. */
function berlinCell(at: number): [number, number] {
	const parts = new Intl.DateTimeFormat('en-GB', {
		timeZone: 'Europe/Berlin',
		weekday: 'short',
		hour: '2-digit',
		hourCycle: 'h23'
	}).formatToParts(at);
	const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(parts.find((part) => part.type === 'weekday')!.value);
	return [weekday, Number(parts.find((part) => part.type === 'hour')!.value)];
}

/** The figures with their durations matched to a thousandth of a second (the database interpolates in float8). */
function close(figures: ReportFigures) {
	const near = (value: number | null) => (value === null ? null : expect.closeTo(value, 3));
	const spread = (figure: ReportFigures['firstResponse']) => ({ ...figure, median: near(figure.median), p90: near(figure.p90) });
	return { ...figures, firstResponse: spread(figures.firstResponse), resolution: spread(figures.resolution) };
}

/** The conversations now: their team state, assignee and whether the customer wrote last, from the plan alone. */
function expectedNow(steps: readonly Step[]) {
	const now = new Map<string, { state: string; assignee: string | null; customerLast: boolean }>();
	for (const step of steps) {
		const entry = now.get(step.conversation) ?? { state: 'open', assignee: null, customerLast: false };
		if (step.kind === 'in') Object.assign(entry, { state: 'open', customerLast: true });
		if (step.kind === 'out') entry.customerLast = false;
		if (step.kind === 'out' && step.agent && entry.assignee === null) entry.assignee = step.agent;
		if (step.kind === 'resolve') entry.state = 'resolved';
		if (step.kind === 'snooze') entry.state = 'snoozed';
		if (step.kind === 'reopen' || step.kind === 'wake') entry.state = 'open';
		now.set(step.conversation, entry);
	}
	return [...now].filter(([, entry]) => entry.state === 'open');
}

const conversationsOf = (facts: readonly Fact[]) => [...new Set(facts.map((fact) => fact.conversation))].sort();

describe.each(BACKENDS)('team reports (docs/reports.md), on %s', (backend) => {
	const databases = useDatabases(backend);
	let db: Database;
	let steps: Step[];
	let accounts: Map<string, Account>;
	const labelOf = new Map<string, string[]>();
	/** The conversations of each team (docs/inbox-api.md §4 "Teams"), by the team's name. */
	const teamOf = new Map<string, string[]>();

	beforeAll(async () => {
		db = await databases.open();
		const start = new Date('2026-01-01T00:00:00Z');
		accounts = new Map();
		for (const name of ['Ann', 'Bob', 'Cyd'])
			accounts.set(
				name,
				await createAccount(db, { username: name.toLowerCase(), displayName: name, role: 'agent', passwordHash: 'x' }, start)
			);
		// a reply to an unassigned conversation assigns it to its sender
		await updateSettings(db, { assignOnFirstReply: true }, accounts.get('Ann')!, start);
		steps = plan([...accounts.keys()]);
		for (const [serial, step] of steps.entries()) await apply(db, accounts, step, serial);
		const deps = { db, now: () => start.getTime() };
		const billing = await createLabel(deps, { name: 'billing', color: 'red' });
		const urgent = await createLabel(deps, { name: 'urgent', color: 'blue' });
		for (const conversation of new Set(steps.map((step) => step.conversation))) {
			const number = Number(conversation.slice(5));
			const labels = [...(number % 3 === 0 ? [billing] : []), ...(number % 4 === 0 ? [urgent] : [])];
			await setConversationLabels(
				deps,
				accounts.get('Ann')!,
				conversation,
				labels.map((label) => label.labelId)
			);
			for (const label of labels) labelOf.set(label.name, [...(labelOf.get(label.name) ?? []), conversation]);
		}
		// a team per conversation number modulo 5: Payments for 0 and 1, Sales for 2, none for the rest
		const teams = {
			Payments: await createTeam(deps, accounts.get('Ann')!, { name: 'Payments', memberIds: [accounts.get('Ann')!.accountId] }),
			Sales: await createTeam(deps, accounts.get('Ann')!, { name: 'Sales', memberIds: [] })
		};
		for (const conversation of new Set(steps.map((step) => step.conversation))) {
			const remainder = Number(conversation.slice(5)) % 5;
			const name = remainder <= 1 ? 'Payments' : remainder === 2 ? 'Sales' : null;
			if (name === null) continue;
			await setConversationTeam(deps, accounts.get('Ann')!, conversation, teams[name].teamId);
			teamOf.set(name, [...(teamOf.get(name) ?? []), conversation]);
		}
		// notes and profiles as random bytes too
		await db.query(
			`insert into conversation_notes (note_id, conversation_id, author_id, author_name, envelope, created_at) values ('note_1', 'conv_01', 'x', 'Ann', $1, now())`,
			[JSON.stringify({ ciphertext: noise(200) })]
		);
	}, 120_000);

	it('gives the share of service targets met, overall and by agent, as the plan says (docs/service-targets.md)', async () => {
		const facts = expectedFacts(steps);
		const report = async () => (await buildTeamReport(db, RANGE, { agentId: null })).serviceTargets;
		expect(await report()).toBeNull();
		// four hours to answer, two days to resolve, in calendar time
		const targets = { firstResponseMinutes: 240, resolutionMinutes: 2880, businessHoursOnly: false, byLabel: {} };
		await updateSettings(db, { serviceTargets: targets }, accounts.get('Ann')!, new Date());
		const share = (of: readonly Fact[], kind: string, limitSeconds: number) => {
			const measured = of.filter((fact) => fact.kind === kind);
			return { met: measured.filter((fact) => fact.seconds! <= limitSeconds).length, measured: measured.length };
		};
		const shares = (of: readonly Fact[]) => ({
			firstResponse: share(of, 'first_response', 240 * 60),
			resolution: share(of, 'resolved', 2880 * 60)
		});
		const expected = shares(facts);
		expect(expected.firstResponse.met).toBeGreaterThan(0);
		expect(expected.firstResponse.met).toBeLessThan(expected.firstResponse.measured);
		expect(expected.resolution.met).toBeLessThan(expected.resolution.measured);
		const got = await report();
		expect(got?.overall).toEqual(expected);
		expect(got?.byAgent).toEqual(
			[...accounts]
				.map(([name, account]) => ({ key: account.accountId, name, ...shares(facts.filter((fact) => fact.agent === name)) }))
				.filter((row) => row.firstResponse.measured + row.resolution.measured > 0)
		);
		const own = await buildTeamReport(db, RANGE, { agentId: accounts.get('Bob')!.accountId });
		expect(own.serviceTargets?.overall).toEqual(shares(facts.filter((fact) => fact.agent === 'Bob')));
		await updateSettings(db, { serviceTargets: null }, accounts.get('Ann')!, new Date());
	});

	it('counts every figure of the range for the team, each agent, each label and each team as the plan says', async () => {
		const facts = expectedFacts(steps);
		expect(facts.filter((fact) => fact.kind === 'first_response').length).toBeGreaterThan(10);
		expect(facts.filter((fact) => fact.kind === 'reopened').length).toBeGreaterThan(2);
		const report = await buildTeamReport(db, RANGE, { agentId: null });
		expect(report.scope).toBe('team');
		expect(report.overall).toEqual(close(expectedFigures(facts)));
		expect(report.byAgent).toEqual(
			[...accounts].map(([name, account]) => ({
				key: account.accountId,
				name,
				figures: close(expectedFigures(facts.filter((fact) => fact.agent === name)))
			}))
		);
		expect(report.byLabel.map((row) => [row.name, row.figures])).toEqual(
			['billing', 'urgent'].map((name) => [
				name,
				close(expectedFigures(facts.filter((fact) => labelOf.get(name)!.includes(fact.conversation))))
			])
		);
		expect(report.byTeam.map((row) => [row.name, row.figures])).toEqual(
			['Payments', 'Sales'].map((name) => [
				name,
				close(expectedFigures(facts.filter((fact) => teamOf.get(name)!.includes(fact.conversation))))
			])
		);
	});

	it('puts each customer message in the hour of Berlin it arrived in', async () => {
		const expected = Array.from({ length: 7 }, () => Array<number>(24).fill(0));
		for (const step of steps.filter((entry) => entry.kind === 'in' && inRange(entry.at))) {
			const [weekday, hour] = berlinCell(step.at);
			expected[weekday][hour] += 1;
		}
		const report = await buildTeamReport(db, RANGE, { agentId: null });
		expect(report.heatmap).toEqual(expected);
	});

	it('gives an agent only their own figures and conversations', async () => {
		const bob = accounts.get('Bob')!;
		const facts = expectedFacts(steps).filter((fact) => fact.agent === 'Bob');
		const report = await buildTeamReport(db, RANGE, { agentId: bob.accountId });
		expect(report.scope).toBe('self');
		expect(report.overall).toEqual(close(expectedFigures(facts)));
		expect(report.byAgent.map((row) => row.name)).toEqual(['Bob']);
		const resolved = await listReportConversations(db, RANGE, { agentId: bob.accountId }, { figure: 'resolved' });
		expect(resolved.data.sort()).toEqual(
			[...new Set(facts.filter((fact) => fact.kind === 'resolved').map((fact) => fact.conversation))].sort()
		);
	});

	it('counts the conversations open now, those without an assignee and those waiting on the team, and lists them', async () => {
		const open = expectedNow(steps);
		const expected = {
			open: open.map(([id]) => id),
			unassigned: open.filter(([, entry]) => entry.assignee === null).map(([id]) => id),
			waiting: open.filter(([, entry]) => entry.customerLast).map(([id]) => id)
		};
		expect(expected.waiting.length).toBeGreaterThan(0);
		const report = await buildTeamReport(db, RANGE, { agentId: null });
		expect(report.current).toEqual({
			open: expected.open.length,
			unassigned: expected.unassigned.length,
			waiting: expected.waiting.length
		});
		for (const figure of ['open', 'unassigned', 'waiting'] as const) {
			const page = await listReportConversations(db, RANGE, { agentId: null }, { figure });
			expect(page.data.sort(), figure).toEqual(expected[figure].sort());
		}
		const cyd = accounts.get('Cyd')!;
		const mine = open.filter(([, entry]) => entry.assignee === 'Cyd');
		expect((await buildTeamReport(db, RANGE, { agentId: cyd.accountId })).current).toEqual({
			open: mine.length,
			unassigned: 0,
			waiting: mine.filter(([, entry]) => entry.customerLast).length
		});
	});

	it("lists the conversations behind every figure, an agent's, a label's, a bucket's and an hour's", async () => {
		const facts = expectedFacts(steps);
		const kinds = {
			opened: 'opened',
			resolved: 'resolved',
			reopened: 'reopened',
			messagesIn: 'message_in',
			messagesOut: 'message_out',
			firstResponse: 'first_response',
			resolution: 'resolved'
		};
		const list = async (filter: Parameters<typeof listReportConversations>[3]) =>
			(await listReportConversations(db, RANGE, { agentId: null }, filter)).data.sort();
		for (const figure of RANGE_FIGURES) {
			const behind = facts.filter((fact) => fact.kind === kinds[figure]);
			expect(await list({ figure }), figure).toEqual(conversationsOf(behind));
			expect(await list({ figure, agentId: accounts.get('Ann')!.accountId }), figure).toEqual(
				conversationsOf(behind.filter((fact) => fact.agent === 'Ann'))
			);
		}
		const billing = (await buildTeamReport(db, RANGE, { agentId: null })).byLabel[0];
		expect(await list({ figure: 'messagesIn', labelId: billing.key })).toEqual(
			conversationsOf(facts.filter((fact) => fact.kind === 'message_in' && labelOf.get('billing')!.includes(fact.conversation)))
		);
		const limits = [0, 1, 4, 8, 24, Infinity].map((hours) => hours * 3600);
		for (const [index, { bucket }] of FIRST_RESPONSE_BUCKETS.entries()) {
			const inBucket = facts.filter(
				(fact) => fact.kind === 'first_response' && fact.seconds! >= limits[index] && fact.seconds! < limits[index + 1]
			);
			expect(await list({ figure: 'firstResponse', bucket }), bucket).toEqual(conversationsOf(inBucket));
		}
		const first = facts.find((fact) => fact.kind === 'message_in')!;
		const [weekday, hour] = berlinCell(first.at);
		expect(await list({ figure: 'messagesIn', cell: { weekday: weekday + 1, hour } })).toEqual(
			conversationsOf(facts.filter((fact) => fact.kind === 'message_in' && berlinCell(fact.at).join() === [weekday, hour].join()))
		);
	});

	it('builds every report from a database whose ciphertext columns are random bytes', async () => {
		// every envelope the spec stored is random bytes: nothing the reports read could be text
		const envelopes = await db.query<{ ciphertext: string }>(`select encryption ->> 'ciphertext' as ciphertext from conversation_messages`);
		expect(envelopes.length).toBeGreaterThan(100);
		for (const { ciphertext } of envelopes) expect(Buffer.from(ciphertext, 'base64url').length).toBe(300);
		const team = await buildTeamReport(db, RANGE, { agentId: null });
		expect(team.overall).toEqual(close(expectedFigures(expectedFacts(steps))));
		for (const account of accounts.values()) {
			const own = await buildTeamReport(db, RANGE, { agentId: account.accountId });
			expect(own.byAgent).toEqual(team.byAgent.filter((row) => row.key === account.accountId));
		}
		for (const figure of [...RANGE_FIGURES, 'open', 'unassigned', 'waiting'] as const)
			expect((await listReportConversations(db, RANGE, { agentId: null }, { figure })).hasMore).toBe(false);
		const payments = team.byTeam.find((row) => row.name === 'Payments')!;
		const listed = await listReportConversations(db, RANGE, { agentId: null }, { figure: 'opened', teamId: payments.key });
		expect(listed.data.length).toBe(payments.figures.opened);
		expect(listed.data.every((id) => teamOf.get('Payments')!.includes(id))).toBe(true);
	});
});

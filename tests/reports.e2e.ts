/**
 * The Reports screen (docs/reports.md "The screen"): customers write, two agents assign, reply and
 * resolve through the API; the admin's page then shows the figures this file counts from what it seeded
 * — never from the report's API — a bar lists the conversations behind it, a CSV link downloads its
 * table, and an agent's page shows only her own figures. The file has a stack of its own, so the team's
 * figures are of these conversations only.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { InboxClient } from '../src/cli/demo/inbox-client';
import { b64uEncode, generateX25519KeyPair, initCrypto } from '../src/lib/crypto/index';
import { companyReplyBody } from './support/admin-api';
import {
	ADMIN,
	createKey,
	expect,
	navLink,
	readyAgent,
	screenshot,
	signIn,
	storedByInbox,
	test,
	type Agent,
	type InboxStack
} from './support/inbox-e2e';

test.use({ inboxEnv: { INBOX_E2E_STACK: 'reports' } });

/** The browser's zone on the pages of this file: not the machine's, so the page's default is seen to be the browser's. */
const ZONE = 'Asia/Tokyo';

interface Seeded {
	conversationId: string;
	assignee: Agent | null;
	customerMessages: number;
	replies: { by: Agent; count: number } | null;
	resolvedBy: Agent | null;
}

/** An agent of the roster with a key registered from Node (this file never opens her browser). */
async function agentFromNode(inbox: InboxStack, label: string): Promise<Agent> {
	await initCrypto();
	const agent = await inbox.createAgent(label);
	const client = await InboxClient.signIn(inbox.url, agent.username, agent.password);
	const { publicKey } = generateX25519KeyPair();
	await client.call('PUT', '/api/agent-key', { agentKeyId: `agk_${b64uEncode(publicKey).slice(0, 16)}`, publicKey: b64uEncode(publicKey) });
	return agent;
}

/** A reply of the agent signed in as `client`, sent through the inbox's proxy: its author is recorded. */
async function reply(inbox: InboxStack, client: InboxClient, conversationId: string, text: string): Promise<void> {
	const conversation = await client.call<Parameters<typeof companyReplyBody>[2]>('GET', `/api/v1/conversations/${conversationId}`);
	const body = await companyReplyBody(inbox.stack, conversationId, conversation, text);
	await client.call('POST', '/api/v1/messages', body, { 'idempotency-key': `e2e_${body.encryption.clientMessageId}` });
}

/** One conversation: a customer invited by `inviter` writes, then it is assigned, answered and resolved as `plan` says. */
async function seed(inbox: InboxStack, inviter: Agent, plan: Omit<Seeded, 'conversationId'>): Promise<Seeded> {
	const invitation = await inbox.invite(inviter);
	const customer = await inbox.customer(invitation);
	for (let n = 1; n <= plan.customerMessages; n++) await customer.say(`Question ${n}`);
	await storedByInbox(inbox, inviter, invitation.conversationId, plan.customerMessages);
	const conversationId = invitation.conversationId;
	if (plan.assignee) {
		const client = await InboxClient.signIn(inbox.url, plan.assignee.username, plan.assignee.password);
		await client.call('PUT', `/api/conversations/${conversationId}/assignee`, { accountId: plan.assignee.accountId });
	}
	if (plan.replies) {
		const client = await InboxClient.signIn(inbox.url, plan.replies.by.username, plan.replies.by.password);
		for (let n = 1; n <= plan.replies.count; n++) await reply(inbox, client, conversationId, `Answer ${n}`);
	}
	if (plan.resolvedBy) {
		const client = await InboxClient.signIn(inbox.url, plan.resolvedBy.username, plan.resolvedBy.password);
		await client.call('PUT', `/api/conversations/${conversationId}/state`, { state: 'resolved' });
	}
	return { conversationId, ...plan };
}

/** What the report must say, counted from the seeded conversations (all answered within the hour). */
function expected(seeded: readonly Seeded[], agent?: Agent) {
	const mine = (who: Agent | null) => agent === undefined || who?.accountId === agent.accountId;
	const assigned = seeded.filter((item) => mine(item.assignee));
	const answered = seeded.filter((item) => item.replies && mine(item.replies.by));
	const open = seeded.filter((item) => item.resolvedBy === null && mine(item.assignee));
	return {
		opened: assigned.length,
		resolved: seeded.filter((item) => item.resolvedBy && mine(item.resolvedBy)).length,
		reopened: 0,
		messagesIn: assigned.reduce((sum, item) => sum + item.customerMessages, 0),
		messagesOut: answered.reduce((sum, item) => sum + (item.replies?.count ?? 0), 0),
		answered: answered.map((item) => item.conversationId),
		open: open.length,
		unassigned: open.filter((item) => item.assignee === null).length,
		waiting: open.filter((item) => item.replies === null).length
	};
}

async function expectFigures(page: Page, figures: Record<string, number>): Promise<void> {
	for (const [figure, value] of Object.entries(figures))
		await expect(page.getByTestId('reports').locator(`button[data-figure="${figure}"]`).getByTestId('figure-value'), figure).toHaveText(
			String(value)
		);
}

/** The weekday (1 = Monday) and hour of `at` in ZONE. */
function weekdayHour(at: Date): string {
	const parts = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, weekday: 'short', hour: 'numeric', hourCycle: 'h23' }).formatToParts(at);
	const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(parts.find((part) => part.type === 'weekday')!.value) + 1;
	return `${weekday} ${Number(parts.find((part) => part.type === 'hour')!.value)}`;
}

async function openReports(page: Page): Promise<void> {
	await navLink(page, 'Reports').click();
	await expect(page.getByTestId('report')).toBeVisible();
}

test('the Reports page shows the figures of what happened, lists the conversations behind a bar, downloads its tables, and an agent sees her own', async ({
	browser,
	inbox
}) => {
	test.setTimeout(120_000);
	const ben = await agentFromNode(inbox, 'ben');
	const adaPage = await (await browser.newContext({ baseURL: inbox.url, timezoneId: ZONE })).newPage();
	const ada = await readyAgent(adaPage, inbox, 'ada');

	const before = new Date();
	const seeded = [
		await seed(inbox, ada, { assignee: ada, customerMessages: 2, replies: { by: ada, count: 1 }, resolvedBy: ada }),
		await seed(inbox, ada, { assignee: ben, customerMessages: 1, replies: { by: ben, count: 2 }, resolvedBy: ben }),
		await seed(inbox, ada, { assignee: null, customerMessages: 1, replies: null, resolvedBy: null })
	];
	const after = new Date();
	const team = expected(seeded);
	const adas = expected(seeded, ada);
	const bens = expected(seeded, ben);

	const page = await (await browser.newContext({ baseURL: inbox.url, timezoneId: ZONE, acceptDownloads: true })).newPage();
	await signIn(page, ADMIN);
	await createKey(page);
	await page.getByTestId('notice-new-key').getByRole('button', { name: 'Got it' }).click();
	await openReports(page);
	await expect(page.getByTestId('reports')).toHaveAttribute('data-scope', 'team');
	await expect(page.getByLabel('Time zone')).toHaveValue(ZONE);
	const { opened, resolved, reopened, messagesIn, messagesOut, open, unassigned, waiting } = team;
	await expectFigures(page, { opened, resolved, reopened, messagesIn, messagesOut, open, unassigned, waiting });
	await screenshot(page, 'reports');

	// the buckets: every answer came within the hour
	const buckets = page.getByTestId('report-buckets');
	await buckets.getByTestId('report-buckets-as-table').click();
	const bucketCounts = await buckets.getByTestId('report-buckets-table').locator('tbody tr td').allTextContents();
	expect(bucketCounts.map((text) => Number(text.trim()))).toEqual([team.answered.length, 0, 0, 0, 0]);
	await buckets.getByTestId('report-buckets-as-table').click();

	// the by-agent rows: each agent's own counts
	const byAgent = page.getByTestId('report-by-agent');
	for (const [agent, figures] of [
		[ada, adas],
		[ben, bens]
	] as const) {
		const row = byAgent.locator(`tr[data-key="${agent.accountId}"]`);
		await expect(row.locator('th')).toHaveText(agent.displayName);
		for (const figure of ['opened', 'resolved', 'messagesIn', 'messagesOut'] as const)
			await expect(row.locator(`td[data-figure="${figure}"]`), `${agent.displayName} ${figure}`).toHaveText(String(figures[figure]));
	}
	await expect(byAgent.locator('tbody tr')).toHaveCount(2);

	// a click on the under-an-hour bar lists the answered conversations, each opening in the inbox
	// (the band of a bar takes the pointer: the whole column is the bar's)
	await buckets.locator('.lc-tooltip-rect').first().click();
	const listed = page.getByTestId('report-conversations');
	await expect(listed.locator('a[data-conversation-id]')).toHaveCount(team.answered.length);
	expect(
		(await listed.locator('a[data-conversation-id]').evaluateAll((links) => links.map((link) => link.dataset.conversationId))).sort()
	).toEqual([...team.answered].sort());
	await expect(listed.locator(`a[data-conversation-id="${team.answered[0]}"]`)).toHaveAttribute('href', `/inbox/${team.answered[0]}`);
	await screenshot(page, 'reports-conversations');
	await page.keyboard.press('Escape');

	// Ben's bar of messages out lists his conversation only
	const bars = page.getByTestId('report-agent-bars');
	const benIndex = (
		await bars
			.getByTestId('report-agent-bars-table')
			.locator('tbody tr')
			.evaluateAll((rows) => rows.map((row) => row.dataset.key))
	).indexOf(ben.accountId);
	await bars.locator('.lc-tooltip-rect').nth(benIndex).click();
	await expect(listed.locator('a[data-conversation-id]')).toHaveCount(1);
	await expect(listed.locator('a[data-conversation-id]')).toHaveAttribute('data-conversation-id', bens.answered[0]);
	await page.keyboard.press('Escape');

	// the heatmap: every customer message, in the browser's zone's hour when the seeding stayed in one
	const cells = page.getByTestId('report-heatmap').locator('td[data-hour] button');
	expect((await cells.allTextContents()).reduce((sum, text) => sum + Number(text), 0)).toBe(team.messagesIn);
	if (weekdayHour(before) === weekdayHour(after)) {
		const [weekday, hour] = weekdayHour(before).split(' ');
		await expect(page.locator(`[data-testid="report-heatmap"] td[data-weekday="${weekday}"][data-hour="${hour}"]`)).toHaveText(
			String(team.messagesIn)
		);
	}

	// the by-agent table as CSV: Ben's row with his counts
	const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-by-agent-csv').click()]);
	const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
	expect(csv[0].split(',').slice(0, 7)).toEqual(['key', 'name', 'opened', 'resolved', 'reopened', 'messagesIn', 'messagesOut']);
	expect(
		csv
			.find((line) => line.startsWith(`${ben.accountId},`))
			?.split(',')
			.slice(1, 7)
	).toEqual([ben.displayName, bens.opened, bens.resolved, 0, bens.messagesIn, bens.messagesOut].map(String));

	// Ada sees her own figures only
	await openReports(adaPage);
	await expect(adaPage.getByTestId('reports')).toHaveAttribute('data-scope', 'self');
	await expectFigures(adaPage, {
		opened: adas.opened,
		resolved: adas.resolved,
		messagesIn: adas.messagesIn,
		messagesOut: adas.messagesOut,
		open: 0,
		unassigned: 0
	});
	await expect(adaPage.getByTestId('report-by-agent').locator('tbody tr')).toHaveCount(1);
	await expect(adaPage.getByTestId('report-by-agent').locator(`tr[data-key="${ada.accountId}"]`)).toBeVisible();

	// a range the API refuses (the last day before the first) says so with the error's code, and no figures
	await adaPage.getByLabel('To (included)').fill('2026-01-01');
	await adaPage.getByLabel('From').fill('2026-02-01');
	await adaPage.getByRole('button', { name: 'Show' }).click();
	await expect(adaPage.getByTestId('report-error')).toHaveAttribute('data-code', 'INVALID_REQUEST');
	await expect(adaPage.getByTestId('report')).toHaveCount(0);
});

/**
 * What the roster refuses and what removal means (contract 2.9, 6.7): a removed
 * agent gets no wrap for a conversation that starts after the next roster; a roster signed with another
 * key, with a stale version, with an unknown field or carrying the signing secret is refused, driven
 * from the admin's page, and changes nothing; a page whose draft went stale shows the conflict.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { isoSeconds, generateEd25519KeyPair, initCrypto, parseKeyFile, signRoster as signWithKey } from '../src/lib/crypto/index';
import { adminTab, agentWithKey, expect, signingAdmin, signingKeyPath, signRoster, unlockSigningKey } from './support/admin-e2e';
import { test, opensUnlocked, type InboxStack } from './support/inbox-e2e';
import { callService } from './support/service-api';

/* eslint-disable @typescript-eslint/no-explicit-any -- the API's JSON answers are read loosely; the tests assert on them */

/** A request from the admin's page, as its own scripts would send it (session cookie, same origin). */
function fromPage(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
	return page.evaluate(
		async ({ method, path, body }) => {
			const response = await fetch(path, {
				method,
				headers: body === undefined ? {} : { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body)
			});
			const text = await response.text();
			return { status: response.status, body: text ? JSON.parse(text) : null };
		},
		{ method, path, body }
	);
}

/** The agent wraps the service holds for the conversation, as the company reads them (the proxy forwards no agent wraps). */
async function agentWrapIds(inbox: InboxStack, conversationId: string): Promise<string[]> {
	const answer = await callService(inbox.stack, 'GET', `/v1/conversations/${conversationId}/agent-wraps`);
	expect(answer.status).toBe(200);
	return answer.body.wraps.map((wrap: { agentKeyId: string }) => wrap.agentKeyId);
}

test('a removed agent gets no wrap for a new conversation; the page says delivered keys cannot be taken back', async ({
	page,
	inbox,
	browser
}) => {
	const admin = await signingAdmin(page, inbox);
	const { agent: leaver, page: leaverPage, agentKeyId: leaverKeyId } = await agentWithKey(browser, inbox, 'leaver');
	await signRoster(page);

	const before = await inbox.customer(await inbox.invite(admin));
	expect(await agentWrapIds(inbox, before.conversationId)).toContain(leaverKeyId);

	await adminTab(page, 'Agents');
	const row = page.locator(`[data-testid=agent-row][data-username="${leaver.username}"]`);
	await row.getByRole('button', { name: 'Remove' }).click();
	await row.getByRole('button', { name: 'Confirm remove' }).click();
	await expect(row).toHaveCount(0);
	// a removed account is signed out everywhere
	expect((await fromPage(leaverPage, 'GET', '/api/session')).status).toBe(401);

	await adminTab(page, 'Roster');
	await expect(page.getByTestId('roster-removed')).toHaveAttribute('data-agent-key-id', leaverKeyId);
	await expect(page.getByTestId('roster-statement')).not.toContainText(leaverKeyId);
	await expect(page.getByText('cannot take back conversation keys already delivered')).toBeVisible();
	await signRoster(page);

	const after = await inbox.customer(await inbox.invite(admin));
	const wrapped = await agentWrapIds(inbox, after.conversationId);
	expect(wrapped).not.toContain(leaverKeyId);
	expect(wrapped).toContain((await inbox.account(admin.username)).agentKeyId);
	// the earlier conversation keeps the wrap the leaver already received: the honest note's point
	expect(await agentWrapIds(inbox, before.conversationId)).toContain(leaverKeyId);
	await leaverPage.context().close();
});

test('a roster signed with another key, with a stale version or carrying the signing secret is refused and changes nothing', async ({
	page,
	inbox
}) => {
	await initCrypto();
	await signingAdmin(page, inbox);
	const accepted = await signRoster(page);

	const overview = (await fromPage(page, 'GET', '/api/admin/roster')).body;
	expect(overview.latest.rosterVersion).toBe(accepted);
	const roster = {
		companyId: overview.next.companyId,
		rosterVersion: overview.next.rosterVersion,
		issuedAt: isoSeconds(new Date()),
		agents: overview.next.agents.map((agent: any) => ({ agentKeyId: agent.agentKeyId, publicKey: agent.publicKey }))
	};
	const upload = (fields: typeof roster, signature: string, extra: Record<string, unknown> = {}) => ({
		rosterVersion: fields.rosterVersion,
		issuedAt: fields.issuedAt,
		agents: fields.agents,
		signature,
		...extra
	});
	const companySecret = parseKeyFile(readFileSync(signingKeyPath(inbox), 'utf8'), 64, 'signing.key');

	// signed with another company's key
	const forged = signWithKey(roster, generateEd25519KeyPair().secretKey);
	const refusedForged = await fromPage(page, 'POST', '/api/admin/roster', upload(roster, forged));
	expect(refusedForged).toMatchObject({ status: 400, body: { error: { code: 'SIGNATURE_INVALID' } } });

	// properly signed, but not previous + 1
	const stale = { ...roster, rosterVersion: accepted };
	const refusedStale = await fromPage(page, 'POST', '/api/admin/roster', upload(stale, signWithKey(stale, companySecret)));
	expect(refusedStale).toMatchObject({ status: 409, body: { error: { code: 'ROSTER_VERSION_CONFLICT' } } });

	// a valid roster with one more field, or with the signing secret riding along
	const signature = signWithKey(roster, companySecret);
	const refusedExtra = await fromPage(page, 'POST', '/api/admin/roster', upload(roster, signature, { note: 'hi' }));
	expect(refusedExtra).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
	const secretText = Buffer.from(companySecret).toString('base64url');
	const refusedSecret = await fromPage(page, 'POST', '/api/admin/roster', upload(roster, signature, { signingKey: secretText }));
	expect(refusedSecret).toMatchObject({ status: 400, body: { error: { code: 'SECRET_REFUSED' } } });

	// nothing changed, here or at the service
	expect((await fromPage(page, 'GET', '/api/admin/roster')).body.latest.rosterVersion).toBe(accepted);
	const company = await (await fetch(`${inbox.simUrl}/_sim/companies/${inbox.stack.company.companyId}`)).json();
	expect(company.latestRosterVersion).toBe(accepted);

	// through the screens: a draft prepared before another tab signed the same version is refused
	await adminTab(page, 'Roster');
	await expect(page.getByTestId('roster-draft')).toHaveAttribute('data-roster-version', String(accepted + 1));
	const other = await page.context().newPage();
	await other.goto('/inbox');
	await opensUnlocked(other);
	await adminTab(other, 'Roster');
	await unlockSigningKey(other);
	expect(await signRoster(other)).toBe(accepted + 1);
	await other.close();
	await page.getByTestId('roster-sign').click();
	await page.getByTestId('roster-confirm-sign').click();
	await expect(page.getByTestId('roster-error')).toHaveAttribute('data-code', 'ROSTER_VERSION_CONFLICT');
	await expect(page.getByTestId('roster-error')).toContainText('stale version');
	// reloaded, the page offers the next version
	await page.getByRole('button', { name: 'Refresh' }).click();
	await expect(page.getByTestId('roster-draft')).toHaveAttribute('data-roster-version', String(accepted + 2));
});

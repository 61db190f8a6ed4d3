import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, AGENT, useStack } from '$test-support/integration';
import { verifyChain, type AuditEntry } from '../../audit/chain';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

/** Every entry, oldest first, as the page reads them to verify the chain. */
async function wholeLog(admin: InboxClient): Promise<AuditEntry[]> {
	const entries: AuditEntry[] = [];
	for (;;) {
		const page = await admin.get(`/api/admin/audit?after=${entries.at(-1)?.seq ?? 0}&limit=500`);
		expect(page.status).toBe(200);
		entries.push(...page.body.data);
		if (!page.body.hasMore) return entries;
	}
}

describe.each(BACKENDS)('the audit log on %s (docs/threat-model.md, "An admin")', (backend) => {
	const harness = useStack(backend);

	it('records sign-ins, failures and admin actions in one chain that admins alone read, filter and page', async () => {
		const admin = await harness.login(ADMIN);
		await harness.login(AGENT);
		expect((await new InboxClient(harness.stack().inbox.url).login('nobody', 'wrong password')).status).toBe(401);
		const ada = (await admin.get('/api/admin/accounts')).body.data.find(
			(account: { username: string }) => account.username === AGENT.username
		);
		expect((await admin.post(`/api/admin/agents/${ada.accountId}/disable`, {})).status).toBeLessThan(300);
		expect((await admin.post(`/api/admin/agents/${ada.accountId}/enable`, {})).status).toBeLessThan(300);
		expect((await admin.post('/api/admin/agent-invitations', { displayName: 'Nora', role: 'agent', validForHours: 1 })).status).toBe(201);
		expect((await admin.patch('/api/admin/settings', { reinviteRewrap: 'automatic' })).status).toBe(200);

		const log = await wholeLog(admin);
		expect(await verifyChain(log)).toMatchObject({ ok: true });
		const actions = log.map((entry) => entry.action);
		for (const action of [
			'session.login',
			'session.login_failed',
			'agent.disabled',
			'agent.enabled',
			'agent.invited',
			'settings.changed'
		]) {
			expect(actions, action).toContain(action);
		}
		expect(log.find((entry) => entry.action === 'session.login_failed')).toMatchObject({ actorId: null, actorName: 'nobody' });
		expect(log.find((entry) => entry.action === 'agent.disabled')).toMatchObject({ actorName: ADMIN.displayName, target: ada.accountId });

		// Filters and paging, newest first.
		const disabled = await admin.get('/api/admin/audit?action=agent.disabled');
		expect(disabled.body.data.map((entry: AuditEntry) => entry.action)).toEqual(['agent.disabled']);
		const newest = await admin.get('/api/admin/audit?limit=2');
		const older = await admin.get(`/api/admin/audit?limit=2&before=${newest.body.data[1].seq}`);
		expect([...newest.body.data, ...older.body.data].map((entry: AuditEntry) => entry.seq)).toEqual(
			log
				.map((entry) => entry.seq)
				.reverse()
				.slice(0, 4)
		);
		for (const bad of ['limit=0', 'limit=501', 'before=x', 'before=1&after=1', 'unknown=1', 'action=a&action=b']) {
			const refused = await admin.get(`/api/admin/audit?${bad}`);
			expect([refused.status, refused.body.error.code], bad).toEqual([400, 'INVALID_REQUEST']);
		}
		// Disabling ended Ada's session: she signs in again.
		const forbidden = await (await harness.login(AGENT)).get('/api/admin/audit');
		expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
		await admin.patch('/api/admin/settings', { reinviteRewrap: 'second_person' });
	});

	it.runIf(backend === 'PostgreSQL')('a row changed in the database breaks the chain from that entry on', async () => {
		const admin = await harness.login(ADMIN);
		const before = await wholeLog(admin);
		expect(await verifyChain(before)).toMatchObject({ ok: true });
		const target = before[Math.floor(before.length / 2)];
		const client = new pg.Client({ connectionString: harness.stack().databaseUrl as string });
		await client.connect();
		try {
			await client.query(`update audit_log set actor_name = 'someone else' where seq = $1`, [target.seq]);
		} finally {
			await client.end();
		}
		expect(await verifyChain(await wholeLog(admin))).toMatchObject({ ok: false, brokenAt: target.seq });
	});
});

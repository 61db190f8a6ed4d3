import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, AGENT, useStack } from '$test-support/integration';
import { postgresBinDir } from '$test-support/prerequisites';
import { freePort } from '../../../cli/stack/ports';
import { startInbox } from '../../../cli/stack/stack';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 180_000 });

const run = promisify(execFile);

/** What an inbox gives back: every conversation the agent reads with its stored messages, and the admin's whole audit log. */
async function everything(inboxUrl: string) {
	const agent = await InboxClient.loggedIn(inboxUrl, AGENT.username, AGENT.password);
	const admin = await InboxClient.loggedIn(inboxUrl, ADMIN.username, ADMIN.password);
	const conversations = (await agent.get('/api/conversations?limit=200')).body.data as { conversationId: string }[];
	const messages: Record<string, unknown[]> = {};
	for (const { conversationId: id } of conversations)
		messages[id] = (await agent.get(`/api/conversations/${id}/messages?limit=500`)).body.data;
	const audit = (await admin.get('/api/admin/audit?limit=500')).body.data as { seq: number }[];
	return { conversations, messages, audit };
}

describe.each(BACKENDS)('backup and restore on %s (docs/operations.md "Backup and restore")', (backend) => {
	const harness = useStack(backend);

	it('a restored copy holds every conversation, message and audit entry of the original', async () => {
		const stack = harness.stack();
		const agent = await harness.loginInRoster();
		const admin = await harness.login(ADMIN);
		for (let i = 0; i < 3; i++) {
			const customer = await Customer.redeem(stack.simUrl, { link: (await agent.post('/api/invites', {})).body.link });
			for (let j = 0; j < 4; j++) await customer.say(`customer ${i}, message ${j}`);
		}
		await expect
			.poll(async () => {
				const { conversations, messages } = await everything(stack.inbox.url);
				return conversations.length === 3 && Object.values(messages).every((list) => list.length === 4);
			})
			.toBe(true);
		await admin.post('/api/admin/accounts', {
			username: 'backed-up',
			displayName: 'Backed Up',
			role: 'agent',
			password: 'backed up password'
		});
		const original = await everything(stack.inbox.url);
		expect(original.audit.length).toBeGreaterThanOrEqual(4);

		// The key files travel apart from the database, into the new machine's DATA_DIR.
		const newDataDir = mkdtempSync(join(tmpdir(), 'inbox-restored-'));
		let databaseUrl: string | null = null;
		if (backend === 'PostgreSQL') {
			// Online: pg_dump reads one consistent snapshot while the inbox runs.
			const dump = join(newDataDir, 'inbox.dump');
			await run(join(postgresBinDir()!, 'pg_dump'), ['--format=custom', `--file=${dump}`, stack.databaseUrl!]);
			databaseUrl = await harness.databases.cluster().createDatabase();
			await run(join(postgresBinDir()!, 'pg_restore'), ['--no-owner', `--dbname=${databaseUrl}`, dump]);
			cpSync(join(stack.dataDir, 'keys'), join(newDataDir, 'keys'), { recursive: true });
		} else {
			// PGlite's directory is the database of one running process: copied while that process is stopped.
			await stack.inbox.stop();
			cpSync(stack.dataDir, newDataDir, { recursive: true });
			await stack.restartInbox();
		}
		const restored = await startInbox({ dataDir: newDataDir, company: stack.company, port: await freePort(), databaseUrl });
		try {
			const copy = await everything(restored.url);
			expect(copy.conversations).toEqual(original.conversations);
			expect(copy.messages).toEqual(original.messages);
			// Signing in to read the copy adds entries of its own to the log, after the restored ones.
			const newest = Math.max(...original.audit.map((entry) => entry.seq));
			expect(copy.audit.filter((entry) => entry.seq <= newest)).toEqual(original.audit);
		} finally {
			await restored.stop();
		}
	});
});

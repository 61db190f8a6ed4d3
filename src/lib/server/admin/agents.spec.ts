import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import { PasswordHasher } from '../auth/passwords';
import { SessionCache } from '../auth/session-cache';
import { createAccount } from '../db/accounts';
import type { Inbox } from '../inbox';
import { inviteAgent, joinWithInvitation } from './agents';

const t0 = Date.parse('2026-11-22T10:00:00Z');

describe.each(BACKENDS)('agent invitation links on %s (docs/inbox-api.md §12)', (backend) => {
	const databases = useDatabases(backend);
	const passwords = new PasswordHasher();
	afterAll(() => passwords.close());

	/** The parts of the server the invitation flow uses, on a clock the test moves. */
	async function inboxAt(clock: { now: number }) {
		const db = await databases.open();
		const inbox = {
			db,
			passwords,
			log: quietLogger,
			sessionCache: new SessionCache(),
			config: { origin: 'https://inbox.example.com' },
			now: () => clock.now
		} as unknown as Inbox;
		const admin = await createAccount(db, { username: 'root', displayName: 'Root', role: 'admin', passwordHash: 'x' }, new Date(t0));
		return { inbox, admin };
	}

	it('works until it expires, once, and a taken username leaves it usable', async () => {
		const clock = { now: t0 };
		const { inbox, admin } = await inboxAt(clock);
		const invitation = await inviteAgent(inbox, admin, { displayName: 'Ivy', role: 'agent', validForHours: 2 });
		expect(invitation).toMatchObject({ expiresAt: '2026-11-22T12:00:00Z' });
		const token = invitation.url.split('#t=')[1];
		const join = (username: string) => joinWithInvitation(inbox, { token, username, password: 'a long enough password' });

		await expect(join('root')).rejects.toMatchObject({ code: 'ALREADY_EXISTS', status: 409 });
		clock.now = t0 + 2 * 3600_000 - 1000;
		const account = await join('ivy');
		expect(account).toMatchObject({ username: 'ivy', displayName: 'Ivy', role: 'agent' });
		await expect(join('ivy2')).rejects.toMatchObject({ code: 'INVITATION_EXPIRED', status: 410 });

		const late = await inviteAgent(inbox, admin, { displayName: 'Late', role: 'admin', validForHours: 1 });
		clock.now += 3600_000;
		await expect(
			joinWithInvitation(inbox, { token: late.url.split('#t=')[1], username: 'late', password: 'a long enough password' })
		).rejects.toMatchObject({ code: 'INVITATION_EXPIRED' });
		await expect(
			joinWithInvitation(inbox, { token: 'A'.repeat(43), username: 'x', password: 'a long enough password' })
		).rejects.toMatchObject({
			code: 'NOT_FOUND',
			status: 404
		});
		const stored = await inbox.db.query<{ token_hash: string }>('select token_hash from agent_invitations');
		expect(stored.map((row) => row.token_hash)).not.toContain(token);
	});
});

/**
 * Profiles written with an invitation in process (docs/private-records.md "Profiles written with an
 * invitation"), against the simulator: only who invited, or an admin, keeps one for a conversation still
 * pending; once the customer joined, it is opened with the company keys and stored as the conversation's
 * `in1` profile in its author's name, unless a profile was saved meanwhile or it does not open.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Customer } from '$test-support/customer';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { recordingLogger } from '$test-support/loggers';
import { applyLatestStart, useSimCompany } from '$test-support/sim-company';
import { decryptPrivateRecord, generateX25519KeyPair, openConversationKey, sealPendingProfile, type Wrap } from '../../crypto/index';
import { createAccount, type Account } from '../db/accounts';
import type { Database } from '../db/database';
import { liveEventsAfter } from '../db/live-events';
import { saveProfile } from '../db/profiles';
import type { CompanyKeys } from '../keys/files';
import { UpstreamClient } from '../upstream/client';
import { createInvitation } from './invitations';
import { convertPendingProfiles, keepPendingProfile } from './pending-profiles';

const service = useSimCompany();

describe.each(BACKENDS)('profiles written with an invitation on %s', (backend) => {
	const databases = useDatabases(backend);
	const recorded = recordingLogger();
	let db: Database;
	let ada: Account;
	let bob: Account;
	let grace: Account;
	let invite: (account: Account) => ReturnType<typeof createInvitation>;
	const now = new Date();

	beforeAll(async () => {
		db = await databases.open();
		const { company, sim, companyKeys } = service;
		const upstream = new UpstreamClient({ baseUrl: sim.url, apiKey: company.apiKey, signingSecret: company.webhookSecret, db });
		const deps = { db, upstream, companyKeys: async () => companyKeys, now: () => now.getTime(), log: recorded.log };
		invite = (account) => createInvitation(deps, { account });
		const account = (username: string, role: 'agent' | 'admin') =>
			createAccount(db, { username, displayName: username.toUpperCase(), role, passwordHash: 'h' }, now);
		[ada, bob, grace] = [await account('ada', 'agent'), await account('bob', 'agent'), await account('grace', 'admin')];
	}, 60_000);

	const sealed = (conversationId: string, author: Account, text: string, publicKey = service.companyKeys.current.publicKey) =>
		sealPendingProfile({ conversationId, authorId: author.accountId, text, companyPublicKey: publicKey });
	const pending = async (conversationId: string) =>
		(
			await db.query<{ author_id: string; author_name: string; sealed: string }>(
				'select author_id, author_name, sealed from pending_profiles where conversation_id = $1',
				[conversationId]
			)
		)[0];
	const convert = (companyKeys: CompanyKeys = service.companyKeys) =>
		convertPendingProfiles({ db, companyKeys: async () => companyKeys, log: recorded.log }, now);
	/** The customer joins the invitation, and the inbox hears of it. */
	const join = async (link: string, conversationId: string) => {
		await Customer.redeem(service.sim.url, { link });
		await applyLatestStart(service.sim, service.company.companyId, db, conversationId, now);
	};
	/** The conversation's stored profile, opened with K: its author and text. */
	async function profile(conversationId: string) {
		const [row] = await db.query<{ author_id: string; author_name: string; envelope: { keyVersion: number }; version: number }>(
			'select author_id, author_name, envelope, version from customer_profiles where conversation_id = $1',
			[conversationId]
		);
		if (!row) return undefined;
		const [{ wrap_for_company }] = await db.query<{ wrap_for_company: Wrap }>(
			'select wrap_for_company from conversations where conversation_id = $1',
			[conversationId]
		);
		const conversationKey = openConversationKey(wrap_for_company, conversationId, [service.companyKeys.current]);
		const text = decryptPrivateRecord(row.envelope, { kind: 'profile', conversationId, authorId: row.author_id, conversationKey });
		return { authorId: row.author_id, authorName: row.author_name, keyVersion: row.envelope.keyVersion, version: row.version, text };
	}

	it('keeps one only for a pending conversation, from who invited or an admin, the last one written', async () => {
		const invitation = await invite(ada);
		const id = invitation.conversationId;
		await expect(keepPendingProfile(db, bob, id, sealed(id, bob, 'Bob’s'), now)).rejects.toMatchObject({
			code: 'FORBIDDEN',
			message: 'only who invited the customer (or an admin) may'
		});
		expect(await pending(id)).toBeUndefined();
		await keepPendingProfile(db, ada, id, sealed(id, ada, 'first'), now);
		expect(await pending(id)).toMatchObject({ author_id: ada.accountId, author_name: 'ADA' });
		const replacement = sealed(id, grace, 'second');
		await keepPendingProfile(db, grace, id, replacement, now);
		expect(await pending(id)).toEqual({ author_id: grace.accountId, author_name: 'GRACE', sealed: replacement });

		await expect(keepPendingProfile(db, ada, 'conv_unknown00', sealed('conv_unknown00', ada, 'x'), now)).rejects.toMatchObject({
			code: 'NOT_FOUND',
			message: 'no conversation conv_unknown00'
		});
		await join(invitation.link, id);
		await expect(keepPendingProfile(db, ada, id, sealed(id, ada, 'late'), now)).rejects.toMatchObject({
			code: 'STATE_CONFLICT',
			message: 'the customer joined already: edit the profile in the conversation'
		});
		expect(await convert()).toBe(1);
		expect(await profile(id)).toMatchObject({ authorId: grace.accountId, authorName: 'GRACE', text: 'second' });
	});

	it('takes only b64u of 64 to 90,000 characters', async () => {
		const { conversationId } = await invite(ada);
		for (const value of [
			'A'.repeat(63),
			'A'.repeat(90_001),
			`${'A'.repeat(64)}=`,
			`=${'A'.repeat(64)}`,
			'A'.repeat(64).replace('A', '+'),
			64,
			null
		]) {
			await expect(keepPendingProfile(db, ada, conversationId, value, now)).rejects.toMatchObject({
				code: 'INVALID_REQUEST',
				message: 'sealed must be b64u'
			});
		}
		for (const value of ['A'.repeat(64), `${'Az09_-'.repeat(14_999)}Az09_-`]) {
			await keepPendingProfile(db, ada, conversationId, value, now);
			expect((await pending(conversationId)).sealed).toBe(value);
		}
	});

	it('stores it as the profile once the conversation started, in its author’s name; the pending one stays until then', async () => {
		const [started, waiting] = [await invite(ada), await invite(ada)];
		await keepPendingProfile(db, ada, started.conversationId, sealed(started.conversationId, ada, '{"name":"Lin"}'), now);
		await keepPendingProfile(db, ada, waiting.conversationId, sealed(waiting.conversationId, ada, '{"name":"Mo"}'), now);
		expect(await convert()).toBe(0);
		await join(started.link, started.conversationId);
		const before = (await liveEventsAfter(db, 0, 10_000)).length;
		expect(await convert()).toBe(1);
		expect(await profile(started.conversationId)).toEqual({
			authorId: ada.accountId,
			authorName: 'ADA',
			keyVersion: service.companyKeys.current.keyVersion,
			version: 1,
			text: '{"name":"Lin"}'
		});
		const changed = (await liveEventsAfter(db, 0, 10_000)).slice(before);
		expect(changed.map(({ type, conversationId, payload }) => ({ type, conversationId, payload }))).toEqual([
			{ type: 'conversation.changed', conversationId: started.conversationId, payload: { conversationId: started.conversationId } }
		]);
		expect(await pending(started.conversationId)).toBeUndefined();
		expect(await pending(waiting.conversationId)).toBeDefined();
		expect(await convert()).toBe(0);
	});

	it('reads no key files while no started conversation has one waiting', async () => {
		await invite(ada).then(({ conversationId }) => keepPendingProfile(db, ada, conversationId, sealed(conversationId, ada, 'x'), now));
		const unreadable = convertPendingProfiles(
			{ db, companyKeys: () => Promise.reject(new Error('key files unreadable')), log: recorded.log },
			now
		);
		await expect(unreadable).resolves.toBe(0);
	});

	it('opens with a previous company key after a rotation', async () => {
		const invitation = await invite(ada);
		const id = invitation.conversationId;
		await keepPendingProfile(db, ada, id, sealed(id, ada, 'rotated'), now);
		await join(invitation.link, id);
		const keys = service.companyKeys;
		expect(await convert({ ...keys, current: { ...generateX25519KeyPair(), keyVersion: 2 }, previous: [keys.current] })).toBe(1);
		expect((await profile(id))?.text).toBe('rotated');
	});

	it('keeps a profile an agent saved meanwhile, and drops one that does not open, saying so', async () => {
		const [saved, foreign] = [await invite(ada), await invite(ada)];
		await keepPendingProfile(db, ada, saved.conversationId, sealed(saved.conversationId, ada, 'from the invitation'), now);
		// sealed for Bob, kept by Ada: it names another author
		await keepPendingProfile(db, ada, foreign.conversationId, sealed(foreign.conversationId, bob, 'not hers'), now);
		await join(saved.link, saved.conversationId);
		await join(foreign.link, foreign.conversationId);
		const envelope = { v: 1, scheme: 'in1', keyVersion: 1, recordId: 'prf_meanwhile0', nonce: 'n', ciphertext: 'c' } as const;
		await saveProfile(db, { conversationId: saved.conversationId, author: bob, envelope, expectedVersion: 0 }, now);
		const before = (await liveEventsAfter(db, 0, 10_000)).length;
		expect(await convert()).toBe(2);
		const [row] = await db.query<{ author_id: string; version: number }>(
			'select author_id, version from customer_profiles where conversation_id = $1',
			[saved.conversationId]
		);
		expect(row).toEqual({ author_id: bob.accountId, version: 1 });
		expect(await profile(foreign.conversationId)).toBeUndefined();
		expect(await pending(saved.conversationId)).toBeUndefined();
		expect(await pending(foreign.conversationId)).toBeUndefined();
		expect((await liveEventsAfter(db, 0, 10_000)).length).toBe(before);
		expect(recorded.lines).toContainEqual({
			level: 'warn',
			message: 'a profile written with the invitation could not be stored',
			fields: { conversation: foreign.conversationId, reason: expect.stringContaining('another conversation or author') }
		});
	});
});

/**
 * The away reply in process (docs/service-targets.md "Away reply"), against the simulator: a customer who
 * writes while the team is away gets the admin's text, encrypted so their phone opens it, once per
 * conversation and away period whoever runs it; nothing while the team is there or the setting is off;
 * a transient failure is tried again with the same request, a refusal for good and a setting turned off
 * drop what was claimed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Customer } from '$test-support/customer';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { recordingLogger } from '$test-support/loggers';
import { applyLatestEvent, applyLatestStart, conversationServices, useSimCompany } from '$test-support/sim-company';
import { createAccount, type Account } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import { storeMessage } from '../db/messages';
import type { Database } from '../db/database';
import { liveEventsAfter } from '../db/live-events';
import { updateSettings } from '../db/settings';
import type { InboxSettings } from '../../inbox-api/records';
import { listReportConversations } from '../reports/drilldown';
import { AwayReplies } from './away-reply';
import { createInvitation } from './invitations';
import type { ConversationServices } from './rewrap';

const service = useSimCompany();
const TEXT = 'We are closed now and answer on our next working day.';
const today = (new Date().getUTCDay() + 6) % 7;
/** Open only three days from today (UTC): now is outside business hours. */
const CLOSED_NOW = {
	timeZone: 'UTC',
	week: Array.from({ length: 7 }, (_, day) => (day === (today + 3) % 7 ? { open: '09:00', close: '17:00' } : null)),
	holidays: []
};
const OPEN_NOW = { timeZone: 'UTC', week: Array(7).fill({ open: '00:00', close: '24:00' }), holidays: [] };

function team(databases: ReturnType<typeof useDatabases>, serviceUrl: () => string) {
	const recorded = recordingLogger();
	const t = {
		db: undefined as unknown as Database,
		services: undefined as unknown as ConversationServices,
		grace: undefined as unknown as Account,
		recorded,
		clock: Date.now(),
		replies: () => new AwayReplies(t.services),
		async settings(change: Partial<InboxSettings>) {
			await updateSettings(t.db, change, t.grace, new Date(t.clock));
		},
		/** A customer who joined; the inbox was told. */
		async customer(): Promise<Customer> {
			const { sim, company } = service;
			const invitation = await createInvitation(t.services, { account: t.grace });
			const customer = await Customer.redeem(sim.url, { link: invitation.link });
			await applyLatestStart(sim, company.companyId, t.db, customer.conversationId, new Date(t.clock));
			return customer;
		},
		/** The customer writes; the inbox stores it as the webhook would. */
		async says(customer: Customer, text: string) {
			await customer.say(text);
			await applyLatestEvent(service.sim, service.company.companyId, t.db, customer.conversationId, new Date(t.clock), 'message.created');
		},
		companyTexts: async (customer: Customer) =>
			(await customer.messages())
				.filter((message: { senderType: string }) => message.senderType === 'company')
				.map((message: { text: string }) => message.text),
		async claims(conversationId: string) {
			return t.db.query<{ period: string; outcome: string | null }>(
				'select period, outcome from away_replies where conversation_id = $1 order by claimed_at',
				[conversationId]
			);
		}
	};
	beforeAll(async () => {
		t.db = await databases.open();
		t.services = conversationServices(service, t.db, serviceUrl(), () => t.clock, recorded.log);
		t.grace = await createAccount(t.db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, new Date(t.clock));
	}, 60_000);
	return t;
}

describe.each(BACKENDS)('the away reply on %s', (backend) => {
	const t = team(useDatabases(backend), () => service.sim.url);

	it('answers a customer who writes outside business hours, once in the closed stretch, encrypted for their phone', async () => {
		const customer = await t.customer();
		await t.says(customer, 'Is anyone there?');
		await t.replies().run();
		expect(await t.claims(customer.conversationId)).toEqual([]);
		await t.settings({ businessHours: CLOSED_NOW, awayReply: { text: TEXT, whenNobodyOnline: false } });
		expect(await t.replies().run()).toBe(1);
		expect(await t.companyTexts(customer)).toEqual([TEXT]);
		const stored = await t.db.query<{ sender_type: string }>(
			'select sender_type from conversation_messages where conversation_id = $1 order by seq',
			[customer.conversationId]
		);
		expect(stored.map((row) => row.sender_type)).toEqual(['user', 'company']);
		const events = (await liveEventsAfter(t.db, 0, 10_000)).filter((event) => event.conversationId === customer.conversationId);
		expect(events.slice(-2).map(({ type, payload }) => ({ type, payload }))).toEqual([
			{
				type: 'message.created',
				payload: { conversationId: customer.conversationId, message: expect.objectContaining({ senderType: 'company' }) }
			},
			{ type: 'conversation.changed', payload: { conversationId: customer.conversationId } }
		]);
		expect(t.recorded.lines).toContainEqual(expect.objectContaining({ level: 'info', message: 'away reply sent' }));
		// the customer still waits for an agent: an away reply is no answer
		const waiting = await listReportConversations(
			t.db,
			{ from: '2026-01-01', to: '2026-01-02', timeZone: 'UTC' },
			{ agentId: null },
			{ figure: 'waiting' }
		);
		expect(waiting.data).toContain(customer.conversationId);

		// the customer writes again in the same stretch, and two runs look at once: still one reply
		t.clock += 60_000;
		await t.says(customer, 'Hello?');
		expect((await Promise.all([t.replies().run(), t.replies().run()])).reduce((sum, sent) => sum + sent, 0)).toBe(0);
		expect(await t.companyTexts(customer)).toEqual([TEXT]);
		expect(await t.claims(customer.conversationId)).toEqual([{ period: expect.stringMatching(/^closed since /), outcome: 'sent' }]);
	});

	it('says nothing while the team is open, and while nobody is online only when asked to', async () => {
		const customer = await t.customer();
		await t.settings({ businessHours: OPEN_NOW, awayReply: { text: TEXT, whenNobodyOnline: false } });
		await t.says(customer, 'Quick question');
		await t.replies().run();
		expect(await t.claims(customer.conversationId)).toEqual([]);
		await t.settings({ awayReply: { text: TEXT, whenNobodyOnline: true } });
		await t.replies().run();
		expect(await t.claims(customer.conversationId)).toEqual([{ period: 'nobody online since the start', outcome: 'sent' }]);
		// the customer writes again: the away reply is no agent's answer, so the period goes on
		await t.says(customer, 'Still there?');
		await t.replies().run();
		expect(await t.companyTexts(customer)).toEqual([TEXT]);
		// a customer who wrote longer ago than the look back is not answered late
		const late = await t.customer();
		await t.says(late, 'An old question');
		const elevenMinutesOn = new AwayReplies({ ...t.services, now: () => t.clock + 11 * 60_000 });
		await elevenMinutesOn.run();
		expect(await t.claims(late.conversationId)).toEqual([]);
		await t.settings({ awayReply: null });
	});

	it('tries a failed send again with the same request, and drops a claimed reply once the setting is off', async () => {
		await t.settings({ businessHours: CLOSED_NOW, awayReply: { text: TEXT, whenNobodyOnline: false } });
		await t.replies().run(); // the earlier tests' customers are answered first: the failures below are this one's
		const customer = await t.customer();
		await t.says(customer, 'Anyone?');
		service.front.failNext(5, { status: 503 });
		const flaky = new AwayReplies(conversationServices(service, t.db, service.front.url, () => t.clock, t.recorded.log));
		expect(await flaky.run()).toBe(0);
		expect(await t.claims(customer.conversationId)).toEqual([{ period: expect.any(String), outcome: null }]);
		expect(t.recorded.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'away reply not sent yet' }));
		await flaky.run(); // not due again yet
		expect(await t.companyTexts(customer)).toEqual([]);
		t.clock += 31_000;
		await flaky.run();
		expect(await t.companyTexts(customer)).toEqual([TEXT]);
		expect(await t.claims(customer.conversationId)).toEqual([{ period: expect.any(String), outcome: 'sent' }]);

		const other = await t.customer();
		await t.says(other, 'And me?');
		service.front.failNext(5, { status: 503 });
		expect(await flaky.run()).toBe(0);
		expect(await t.claims(other.conversationId)).toEqual([{ period: expect.any(String), outcome: null }]);
		await t.settings({ awayReply: null });
		expect(await flaky.run()).toBe(0);
		expect(await t.claims(other.conversationId)).toEqual([{ period: expect.any(String), outcome: 'dropped' }]);
		expect(t.recorded.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'away reply not sent yet' }));
		expect(await t.companyTexts(other)).toEqual([]);
	});

	it('drops the reply of a conversation whose key it cannot open, and says why', async () => {
		await t.settings({ businessHours: CLOSED_NOW, awayReply: { text: TEXT, whenNobodyOnline: false } });
		await t.replies().run(); // the earlier tests' customers first
		const conversationId = 'conv_without_wrap';
		await ensureConversation(t.db, conversationId, 'active', new Date(t.clock));
		const message = {
			messageId: 'msg_without_wrap',
			conversationId,
			seq: 1,
			senderType: 'user',
			contentType: 'text',
			encryption: { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: 'cm_without_wrap', nonce: 'n', ciphertext: 'c' },
			attachment: null,
			createdAt: new Date(t.clock).toISOString()
		} as const;
		await t.db.transaction((tx) => storeMessage(tx, message, null));
		expect(await t.replies().run()).toBe(0);
		expect(await t.claims(conversationId)).toEqual([{ period: expect.any(String), outcome: 'dropped' }]);
		expect(t.recorded.lines).toContainEqual({
			level: 'error',
			message: 'away reply dropped',
			fields: { conversation: conversationId, period: expect.any(String), reason: 'no company wrap is known for this conversation' }
		});
		expect(await t.replies().run()).toBe(0);
	});
});

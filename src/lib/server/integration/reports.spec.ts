import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { encryptMessage, initCrypto, newClientMessageId, openConversationKey } from '../../crypto/index';
import { loadCompanyKeys } from '../keys/files';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 240_000 });

const day = (offset: number) => new Date(Date.now() + offset * 24 * 3600_000).toISOString().slice(0, 10);

const HOURS = {
	timeZone: 'Europe/Berlin',
	week: [...Array(5).fill({ open: '09:00', close: '17:00' }), null, null],
	holidays: ['2026-12-25']
};
const TARGETS = {
	firstResponseMinutes: 60,
	resolutionMinutes: 480,
	businessHoursOnly: true,
	byLabel: { lbl_vip: { firstResponseMinutes: 15 } }
};

describe('the team reports and service targets over HTTP (docs/reports.md "The API", docs/service-targets.md; docs/inbox-api.md §1 "Access")', () => {
	const harness = useStack('PostgreSQL');

	it('gives an admin the team, a roster agent only their own figures, and an account outside the roster nothing', async () => {
		const ada = await harness.loginInRoster();
		const grace = await harness.login(ADMIN);
		const outsider = await harness.loginOutsider();
		const accountOf = async (client: InboxClient) => (await client.get('/api/session')).body.account.accountId as string;
		const [adaId, graceId] = [await accountOf(ada), await accountOf(grace)];

		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		await customer.say('hello');
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}/messages`)).body.data.length, { timeout: 20_000 }).toBe(1);
		expect((await grace.put(`/api/conversations/${id}/assignee`, { accountId: adaId })).status).toBe(200);
		expect((await grace.put(`/api/conversations/${id}/state`, { state: 'resolved' })).status).toBe(200);

		// ada's tab opens, reloads a second later: one stretch online, shown to the team and to her
		for (const pause of [1_100, 0]) {
			const stream = await ada.events();
			await stream.waitFor((event) => event.event === 'ready');
			stream.close();
			await new Promise((resolve) => setTimeout(resolve, pause));
		}

		// the days are UTC's and `to` is excluded, in Berlin's time: two days on, so that the range holds now
		// also in the hour when Berlin has already reached the next day (it failed from 23:00 UTC)
		const range = `from=${day(-1)}&to=${day(2)}&tz=Europe/Berlin`;
		const team = await grace.get(`/api/reports?${range}`);
		const online = (rows: { key: string; seconds: number }[]) => rows.map((row) => [row.key, row.seconds >= 1 && row.seconds < 60]);
		expect(online(team.body.timeOnline)).toEqual([[adaId, true]]);
		expect(online((await ada.get(`/api/reports?${range}`)).body.timeOnline)).toEqual([[adaId, true]]);
		const onlineCsv = await fetch(`${grace.url}/api/reports/csv?${range}&table=timeOnline`, { headers: { cookie: grace.cookie! } });
		expect((await onlineCsv.text()).split('\r\n')[1]).toMatch(new RegExp(`^${adaId},Ada Agent,[0-9.]+$`));
		expect(team.status).toBe(200);
		expect(team.body).toMatchObject({ scope: 'team', range: { from: day(-1), to: day(2), timeZone: 'Europe/Berlin' } });
		expect(team.body.overall).toMatchObject({ opened: 1, resolved: 1, messagesIn: 1, messagesOut: 0 });
		expect(
			team.body.byAgent.map((row: { key: string; figures: { opened: number; resolved: number } }) => [
				row.key,
				row.figures.opened,
				row.figures.resolved
			])
		).toEqual(
			// the opened conversation counts for its assignee, the resolution for who resolved it
			expect.arrayContaining([
				[adaId, 1, 0],
				[graceId, 0, 1]
			])
		);
		expect((await grace.get(`/api/reports/conversations?${range}&figure=resolved&agent=${graceId}`)).body).toEqual({
			data: [id],
			hasMore: false
		});

		const own = await ada.get(`/api/reports?${range}`);
		expect(own.body).toMatchObject({ scope: 'self', overall: { opened: 1, resolved: 0, messagesIn: 1 } });
		expect(own.body.byAgent.map((row: { key: string }) => row.key)).toEqual([adaId]);
		expect((await ada.get(`/api/reports/conversations?${range}&figure=opened`)).body).toEqual({ data: [id], hasMore: false });
		expect((await ada.get(`/api/reports/conversations?${range}&figure=resolved`)).body).toEqual({ data: [], hasMore: false });
		const other = await ada.get(`/api/reports/conversations?${range}&figure=resolved&agent=${graceId}`);
		expect([other.status, other.body.error.code]).toEqual([403, 'FORBIDDEN']);
		const ownCsv = await fetch(`${ada.url}/api/reports/csv?${range}&table=byAgent`, { headers: { cookie: ada.cookie! } });
		expect(ownCsv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
		expect(
			(await ownCsv.text())
				.split('\r\n')
				.filter(Boolean)
				.map((line) => line.split(',')[0])
		).toEqual(['key', adaId]);

		for (const path of ['/api/reports', '/api/reports/conversations', '/api/reports/csv']) {
			const refused = await outsider.get(`${path}?${range}&figure=opened&table=overall`);
			expect([refused.status, refused.body.error.code], path).toEqual([403, 'NOT_IN_ROSTER']);
			const anonymous = await fetch(`${grace.url}${path}?${range}`);
			expect(anonymous.status, path).toBe(401);
		}
	});

	it('refuses a day that does not exist, an unknown time zone, a range over 366 days and an unknown parameter', async () => {
		const grace = await harness.login(ADMIN);
		for (const [query, message] of [
			['from=2026-02-30&to=2026-03-01', 'from must be a day, YYYY-MM-DD'],
			['from=2026-02-01&to=tomorrow', 'to must be a day, YYYY-MM-DD'],
			['from=2026-02-01&to=2026-02-01', 'to must be after from'],
			['from=2025-01-01&to=2026-01-03', 'the range must be at most 366 days'],
			['from=2026-02-01&to=2026-03-01&tz=Mars/Olympus', 'tz must be an IANA time zone, such as Europe/Berlin'],
			['from=2026-02-01&to=2026-03-01&agent=acc_x', 'unknown or repeated parameter agent']
		]) {
			const refused = await grace.get(`/api/reports?${query}`);
			expect([refused.status, refused.body.error], query).toEqual([400, { code: 'INVALID_REQUEST', message }]);
		}
		const figure = await grace.get('/api/reports/conversations?from=2026-02-01&to=2026-03-01&figure=everything');
		expect([figure.status, figure.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
		const table = await grace.get('/api/reports/csv?from=2026-02-01&to=2026-03-01&table=secrets');
		expect([table.status, table.body.error.message]).toEqual([
			400,
			'table must be one of overall, byAgent, byLabel, byTeam, firstResponseBuckets, heatmap, timeOnline, current, serviceTargets'
		]);
	});

	it('takes business hours and service targets from admins only, strictly; the roster reads them, live; each conversation shows the times they measure', async () => {
		await initCrypto();
		const grace = await harness.login(ADMIN);
		const ada = await harness.loginInRoster();
		const outsider = await harness.loginOutsider();

		expect((await ada.get('/api/service-targets')).body).toEqual({ businessHours: null, serviceTargets: null });
		expect((await outsider.get('/api/service-targets')).body.error.code).toBe('NOT_IN_ROSTER');
		expect((await ada.patch('/api/admin/settings', { serviceTargets: TARGETS })).body.error.code).toBe('FORBIDDEN');
		const refused = await grace.patch('/api/admin/settings', {
			businessHours: { ...HOURS, week: [{ open: '17:00', close: '09:00' }, ...HOURS.week.slice(1)] }
		});
		expect([refused.status, refused.body.error]).toEqual([
			400,
			{ code: 'INVALID_REQUEST', message: 'businessHours week[0] must open before it closes' }
		]);
		const wrongTarget = await grace.patch('/api/admin/settings', { serviceTargets: { ...TARGETS, firstResponseMinutes: 0 } });
		expect(wrongTarget.body.error.message).toMatch(/^serviceTargets firstResponseMinutes must be null \(none\) or a whole number/);
		expect((await ada.get('/api/service-targets')).body).toEqual({ businessHours: null, serviceTargets: null });

		const events = await ada.events();
		await events.waitFor((event) => event.event === 'ready');
		const saved = await grace.patch('/api/admin/settings', { businessHours: HOURS, serviceTargets: TARGETS });
		expect(saved.body).toMatchObject({ businessHours: HOURS, serviceTargets: TARGETS });
		await events.waitFor((event) => event.event === 'settings.changed');
		events.close();
		expect((await ada.get('/api/service-targets')).body).toEqual({ businessHours: HOURS, serviceTargets: TARGETS });
		const audit = (await grace.get('/api/admin/audit?action=settings.changed')).body.data[0];
		expect(JSON.parse(audit.details.serviceTargets)).toEqual(TARGETS);

		// a conversation shows its customer's first message, then the first reply after it
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		expect((await grace.get(`/api/conversations/${id}`)).body).toMatchObject({ firstCustomerAt: null, firstReplyAt: null });
		await customer.say('hello');
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.firstCustomerAt, { timeout: 20_000 }).not.toBeNull();
		const keys = await loadCompanyKeys(join(harness.stack().dataDir, 'keys'));
		const conversationKey = openConversationKey((await grace.get(`/api/v1/conversations/${id}`)).body.wrapForCompany, id, [keys.current]);
		const encryption = encryptMessage({
			conversationKey,
			conversationId: id,
			senderType: 'company',
			clientMessageId: newClientMessageId(),
			keyVersion: 1,
			text: 'Hello, how can we help?'
		});
		expect((await grace.post('/api/v1/messages', { conversationId: id, contentType: 'text', encryption })).status).toBe(201);
		const answered = (await grace.get(`/api/conversations/${id}`)).body;
		expect(Date.parse(answered.firstReplyAt)).toBeGreaterThanOrEqual(Date.parse(answered.firstCustomerAt));
		const listed = (await grace.get('/api/conversations')).body.data.find((row: { conversationId: string }) => row.conversationId === id);
		expect(listed).toMatchObject({ firstCustomerAt: answered.firstCustomerAt, firstReplyAt: answered.firstReplyAt });
	});

	it('sends a customer who writes outside business hours the away reply, once in the stretch, encrypted for them and named in the thread', async () => {
		const grace = await harness.login(ADMIN);
		// open only on the weekday three days from today (UTC): now is outside business hours
		const today = (new Date().getUTCDay() + 6) % 7;
		const week = Array.from({ length: 7 }, (_, day) => (day === (today + 3) % 7 ? { open: '09:00', close: '17:00' } : null));
		const text = 'We are closed now and will answer on our next working day.';
		const refused = await grace.patch('/api/admin/settings', { awayReply: { text: ' ', whenNobodyOnline: false } });
		expect(refused.body.error).toEqual({ code: 'INVALID_REQUEST', message: 'awayReply text must be 1 to 2000 characters' });
		await grace.patch('/api/admin/settings', {
			businessHours: { timeZone: 'UTC', week, holidays: [] },
			awayReply: { text, whenNobodyOnline: false }
		});

		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		await customer.say('Is anyone there?');
		const companyTexts = async () =>
			(await customer.messages())
				.filter((message: { senderType: string }) => message.senderType === 'company')
				.map((message: { text: string }) => message.text);
		await expect.poll(companyTexts, { timeout: 30_000 }).toEqual([text]);
		await customer.say('Hello?');
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}/messages`)).body.data.length, { timeout: 20_000 }).toBe(3);
		// the team clock looks again every 15 s: still one reply in this closed stretch
		await new Promise((resolve) => setTimeout(resolve, 16_000));
		expect(await companyTexts()).toEqual([text]);

		const stored = (await grace.get(`/api/conversations/${id}/messages`)).body.data;
		const away = stored.find((message: { senderType: string }) => message.senderType === 'company');
		const authors = await grace.post('/api/message-authors', {
			messages: [{ conversationId: id, clientMessageId: away.encryption.clientMessageId }]
		});
		expect(authors.body.data).toEqual([
			{ conversationId: id, clientMessageId: away.encryption.clientMessageId, origin: 'agent', accountId: null, displayName: 'Away reply' }
		]);
		await grace.patch('/api/admin/settings', { awayReply: null, businessHours: null });
	});
});

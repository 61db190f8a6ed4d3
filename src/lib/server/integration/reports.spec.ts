import { describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 240_000 });

const day = (offset: number) => new Date(Date.now() + offset * 24 * 3600_000).toISOString().slice(0, 10);

describe('the team reports over HTTP (docs/reports.md "The API"; docs/inbox-api.md §1 "Access")', () => {
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

		const range = `from=${day(-1)}&to=${day(1)}&tz=Europe/Berlin`;
		const team = await grace.get(`/api/reports?${range}`);
		const online = (rows: { key: string; seconds: number }[]) => rows.map((row) => [row.key, row.seconds >= 1 && row.seconds < 60]);
		expect(online(team.body.timeOnline)).toEqual([[adaId, true]]);
		expect(online((await ada.get(`/api/reports?${range}`)).body.timeOnline)).toEqual([[adaId, true]]);
		const onlineCsv = await fetch(`${grace.url}/api/reports/csv?${range}&table=timeOnline`, { headers: { cookie: grace.cookie! } });
		expect((await onlineCsv.text()).split('\r\n')[1]).toMatch(new RegExp(`^${adaId},Ada Agent,[0-9.]+$`));
		expect(team.status).toBe(200);
		expect(team.body).toMatchObject({ scope: 'team', range: { from: day(-1), to: day(1), timeZone: 'Europe/Berlin' } });
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
			'table must be one of overall, byAgent, byLabel, firstResponseBuckets, heatmap, timeOnline, current'
		]);
	});
});

import { describe, expect, it } from 'vitest';
import { MAX_REPORT_DAYS, parseReportRange } from './range';

const parse = (query: string) => parseReportRange(new URLSearchParams(query));

describe('a report\'s range (docs/reports.md "The API")', () => {
	it('takes real days with the day after the last, up to 366 days, in an IANA time zone (UTC when left out)', () => {
		expect(parse('from=2026-02-01&to=2026-03-01&tz=Europe/Berlin')).toEqual({
			from: '2026-02-01',
			to: '2026-03-01',
			timeZone: 'Europe/Berlin'
		});
		expect(parse('from=2024-01-01&to=2025-01-01')).toEqual({ from: '2024-01-01', to: '2025-01-01', timeZone: 'UTC' });
		expect(parse('from=2024-02-29&to=2024-03-01&tz=America/Argentina/Buenos_Aires').timeZone).toBe('America/Argentina/Buenos_Aires');
		expect(MAX_REPORT_DAYS).toBe(366);
	});

	it('refuses anything else with INVALID_REQUEST, naming the parameter', () => {
		const cases: [string, string][] = [
			['to=2026-03-01', 'from must be a day, YYYY-MM-DD'],
			['from=2026-02-30&to=2026-03-01', 'from must be a day, YYYY-MM-DD'],
			['from=2025-02-29&to=2026-03-01', 'from must be a day, YYYY-MM-DD'],
			['from=2026-2-1&to=2026-03-01', 'from must be a day, YYYY-MM-DD'],
			['from=2026-02-01T00:00&to=2026-03-01', 'from must be a day, YYYY-MM-DD'],
			['from=2026-02-01', 'to must be a day, YYYY-MM-DD'],
			['from=2026-02-01&to=2026-13-01', 'to must be a day, YYYY-MM-DD'],
			['from=2026-02-01&to=2026-01-31', 'to must be after from'],
			['from=2026-02-01&to=2026-02-01', 'to must be after from'],
			['from=2025-01-01&to=2026-01-03', 'the range must be at most 366 days'],
			['from=2026-02-01&to=2026-03-01&tz=Mars/Olympus', 'tz must be an IANA time zone, such as Europe/Berlin'],
			['from=2026-02-01&to=2026-03-01&tz=', 'tz must be an IANA time zone, such as Europe/Berlin'],
			["from=2026-02-01&to=2026-03-01&tz=UTC'; drop table x", 'tz must be an IANA time zone, such as Europe/Berlin']
		];
		for (const [query, message] of cases)
			expect(() => parse(query), query).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', message }));
		expect(() => parse('from=2025-01-01&to=2026-01-02')).not.toThrow();
	});
});

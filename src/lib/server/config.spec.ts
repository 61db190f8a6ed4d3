import { describe, expect, it } from 'vitest';
import { bodyLimitIsEnough, ConfigError, loadConfig, originIsLocalHttp } from './config';

const apiKey = `sk_live_${'A'.repeat(43)}`;
const secret = `whsec_${'B'.repeat(42)}A`;
const previous = `whsec_${'C'.repeat(42)}A`;
const valid = {
	SERVICE_BASE_URL: 'https://api.example.com/',
	SERVICE_API_KEY: apiKey,
	SERVICE_WEBHOOK_SECRET: secret,
	ORIGIN: 'https://inbox.example.com'
};

function problemsOf(env: Record<string, string | undefined>): string[] {
	try {
		loadConfig(env, { cwd: '/srv/inbox' });
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigError);
		return (error as ConfigError).problems;
	}
	throw new Error('expected a ConfigError');
}

describe('configuration from the environment', () => {
	it('reads a valid environment with its defaults', () => {
		const config = loadConfig(valid, { cwd: '/srv/inbox' });
		expect(config).toEqual({
			serviceBaseUrl: 'https://api.example.com',
			serviceApiKey: apiKey,
			webhookSecret: secret,
			webhookSecretPrevious: null,
			webhookSecretPreviousUntil: null,
			serviceCompanyId: null,
			dataDir: '/srv/inbox/data',
			keysDir: '/srv/inbox/data/keys',
			databaseUrl: null,
			// its defaults: node/listen.spec.ts
			listen: expect.objectContaining({ host: '0.0.0.0', port: 3000 }),
			origin: 'https://inbox.example.com',
			webhookProcessing: true,
			workLeaseMs: 15_000,
			storageOrigins: ['https://api.example.com'],
			caps: { uploadsPerHour: 100, writesPerMinute: 240, streamsPerSession: 10, streamsPerAccount: 30 },
			unlockShareGraceMs: 45_000,
			metrics: { token: null, port: null, host: '127.0.0.1' }
		});
	});

	it('keeps an unlock share 1 to 3,600 seconds after the last tab closed (docs/operations.md "Unlock once per browser session")', () => {
		expect(loadConfig({ ...valid, UNLOCK_SHARE_GRACE_SECONDS: '8' }).unlockShareGraceMs).toBe(8_000);
		for (const value of ['0', '3601', '1.5', 'soon'])
			expect(() => loadConfig({ ...valid, UNLOCK_SHARE_GRACE_SECONDS: value }), value).toThrow(
				`UNLOCK_SHARE_GRACE_SECONDS must be a whole number of seconds from 1 to 3600, got ${JSON.stringify(value)}`
			);
	});

	it('serves the metrics behind a bearer token of 32 characters or more, and on a port of their own', () => {
		const token = 'm'.repeat(32);
		expect(loadConfig({ ...valid, METRICS_TOKEN: token, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({
			token,
			port: 9464,
			host: '0.0.0.0'
		});
		expect(() => loadConfig({ ...valid, METRICS_TOKEN: 'short' })).toThrow('METRICS_TOKEN must be 32 to 256 printable characters');
		expect(() => loadConfig({ ...valid, METRICS_PORT: '99999' })).toThrow('METRICS_PORT must be an integer from 1 to 65535, got "99999"');
	});

	it('reads the caps per account, each a whole number from 1 (docs/operations.md "Caps per account")', () => {
		const caps = { CAP_UPLOADS_PER_HOUR: '12', CAP_WRITES_PER_MINUTE: '34', CAP_STREAMS_PER_SESSION: '5', CAP_STREAMS_PER_ACCOUNT: '6' };
		expect(loadConfig({ ...valid, ...caps }).caps).toEqual({
			uploadsPerHour: 12,
			writesPerMinute: 34,
			streamsPerSession: 5,
			streamsPerAccount: 6
		});
		expect(loadConfig({ ...valid, CAP_UPLOADS_PER_HOUR: '' }).caps.uploadsPerHour).toBe(100);
		for (const value of ['0', '-1', '1.5', 'many', '12345678']) {
			expect(() => loadConfig({ ...valid, CAP_STREAMS_PER_SESSION: value }), value).toThrow(
				`CAP_STREAMS_PER_SESSION must be a whole number from 1, got ${JSON.stringify(value)}`
			);
		}
	});

	it('reads the lease on shared work from WORK_LEASE_MS, in whole milliseconds from 1000 to 300000 (docs/operations.md "Several processes")', () => {
		expect(loadConfig({ ...valid, WORK_LEASE_MS: '2000' }).workLeaseMs).toBe(2_000);
		expect(loadConfig({ ...valid, WORK_LEASE_MS: '1000' }).workLeaseMs).toBe(1_000);
		expect(loadConfig({ ...valid, WORK_LEASE_MS: '300000' }).workLeaseMs).toBe(300_000);
		expect(loadConfig({ ...valid, WORK_LEASE_MS: '' }).workLeaseMs).toBe(15_000);
		for (const value of ['999', '300001', '2s', '1.5', '-2000']) {
			expect(() => loadConfig({ ...valid, WORK_LEASE_MS: value }), value).toThrow(
				`WORK_LEASE_MS must be a whole number of milliseconds from 1000 to 300000, got ${JSON.stringify(value)}`
			);
		}
	});

	it('reads every optional setting', () => {
		const config = loadConfig(
			{
				...valid,
				SERVICE_BASE_URL: 'https://gateway.example.com/prod',
				SERVICE_WEBHOOK_SECRET_PREVIOUS: previous,
				SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL: '2026-11-25T10:00:00Z',
				DATA_DIR: '/var/lib/inbox',
				DATABASE_URL: 'postgres://inbox@db/inbox',
				PORT: '8080',
				WEBHOOK_PROCESSING: 'off',
				SERVICE_COMPANY_ID: 'cmp_abcdefghijkl'
			},
			{ cwd: '/srv' }
		);
		expect(config).toMatchObject({
			serviceBaseUrl: 'https://gateway.example.com/prod',
			webhookSecretPrevious: previous,
			webhookSecretPreviousUntil: new Date('2026-11-25T10:00:00Z'),
			dataDir: '/var/lib/inbox',
			keysDir: '/var/lib/inbox/keys',
			databaseUrl: 'postgres://inbox@db/inbox',
			listen: { port: 8080 },
			webhookProcessing: false,
			serviceCompanyId: 'cmp_abcdefghijkl'
		});
		expect(problemsOf({ ...valid, SERVICE_COMPANY_ID: 'cmp/../x' })).toEqual([expect.stringMatching(/^SERVICE_COMPANY_ID must be/)]);
	});

	it('lists every problem at once, one clear message each', () => {
		const problems = problemsOf({ PORT: 'eighty' });
		expect(problems).toEqual([
			expect.stringMatching(/^SERVICE_BASE_URL is not set/),
			expect.stringMatching(/^SERVICE_API_KEY is not set/),
			expect.stringMatching(/^SERVICE_WEBHOOK_SECRET is not set/),
			expect.stringMatching(/^PORT must be an integer/),
			expect.stringMatching(/^ORIGIN is not set/)
		]);
	});

	it('refuses malformed credentials without echoing them', () => {
		const problems = problemsOf({ ...valid, SERVICE_API_KEY: 'sk_test_secretvalue', SERVICE_WEBHOOK_SECRET: `whsec_${'B'.repeat(42)}=` });
		expect(problems).toHaveLength(2);
		expect(problems[0]).toMatch(/SERVICE_API_KEY is not a valid API key/);
		expect(problems[1]).toMatch(/SERVICE_WEBHOOK_SECRET is not a valid webhook secret/);
		expect(problems.join()).not.toContain('secretvalue');
	});

	it('refuses a previous secret equal to the current one', () => {
		expect(
			problemsOf({ ...valid, SERVICE_WEBHOOK_SECRET_PREVIOUS: secret, SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL: '2026-11-25T10:00:00Z' })
		).toEqual([expect.stringMatching(/equals SERVICE_WEBHOOK_SECRET/)]);
	});

	it('wants the end of the overlap with a previous secret, as a date with its zone, and only with one', () => {
		expect(problemsOf({ ...valid, SERVICE_WEBHOOK_SECRET_PREVIOUS: previous })).toEqual([
			expect.stringMatching(/SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL is missing/)
		]);
		for (const until of ['2026-11-25', '2026-11-25T10:00:00', 'tomorrow', '2026-13-45T10:00:00Z']) {
			expect(
				problemsOf({ ...valid, SERVICE_WEBHOOK_SECRET_PREVIOUS: previous, SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL: until }),
				until
			).toEqual([expect.stringMatching(/must be a date and time with its zone/)]);
		}
		expect(problemsOf({ ...valid, SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL: '2026-11-25T10:00:00Z' })).toEqual([
			expect.stringMatching(/set without SERVICE_WEBHOOK_SECRET_PREVIOUS/)
		]);
	});

	it('wants https for the service except on the local machine, and no /v1 suffix', () => {
		expect(problemsOf({ ...valid, SERVICE_BASE_URL: 'http://api.example.com' })).toEqual([expect.stringMatching(/must use https/)]);
		expect(loadConfig({ ...valid, SERVICE_BASE_URL: 'http://127.0.0.1:8787' }).serviceBaseUrl).toBe('http://127.0.0.1:8787');
		expect(problemsOf({ ...valid, SERVICE_BASE_URL: 'https://api.example.com/v1/' })).toEqual([
			expect.stringMatching(/must not end with \/v1/)
		]);
		expect(problemsOf({ ...valid, SERVICE_BASE_URL: 'ftp://api.example.com' })).toEqual([
			expect.stringMatching(/must be an http\(s\) URL/)
		]);
	});

	it('wants ORIGIN as a bare origin, a postgres DATABASE_URL and an on/off switch', () => {
		expect(problemsOf({ ...valid, ORIGIN: 'https://inbox.example.com/app' })).toEqual([
			expect.stringMatching(/ORIGIN must be a scheme and host only/)
		]);
		expect(problemsOf({ ...valid, DATABASE_URL: 'mysql://db/inbox' })).toEqual([expect.stringMatching(/DATABASE_URL must be a postgres/)]);
		expect(problemsOf({ ...valid, WEBHOOK_PROCESSING: 'yes' })).toEqual([expect.stringMatching(/WEBHOOK_PROCESSING must be on or off/)]);
	});

	it('takes one of pino\'s levels as LOG_LEVEL (docs/operations.md "Logs")', () => {
		for (const level of ['debug', 'warn', 'silent', '']) expect(() => loadConfig({ ...valid, LOG_LEVEL: level }), level).not.toThrow();
		expect(problemsOf({ ...valid, LOG_LEVEL: 'verbose' })).toEqual([
			'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'
		]);
	});

	it("takes the storage's origins from STORAGE_ORIGINS, else the service's, and refuses anything but bare origins", () => {
		expect(loadConfig({ ...valid, SERVICE_BASE_URL: 'https://gateway.example.com/prod' }).storageOrigins).toEqual([
			'https://gateway.example.com'
		]);
		const listed = 'https://files.example.com, https://Backup.example.net:8443/ http://127.0.0.1:8787 https://files.example.com';
		expect(loadConfig({ ...valid, STORAGE_ORIGINS: listed }).storageOrigins).toEqual([
			'https://files.example.com',
			'https://backup.example.net:8443',
			'http://127.0.0.1:8787'
		]);
		for (const item of [
			'https://files.example.com/bucket',
			'https://files.example.com?x=1',
			'https://u@files.example.com',
			'ftp://files.example.com'
		]) {
			expect(problemsOf({ ...valid, STORAGE_ORIGINS: item })).toEqual([expect.stringMatching(/^STORAGE_ORIGINS must list origins/)]);
		}
		// a host that would end the connect-src directive and start another one
		expect(problemsOf({ ...valid, STORAGE_ORIGINS: "https://files.example.com;script-src'unsafe-inline'" })).toEqual([
			expect.stringMatching(/^STORAGE_ORIGINS must list origins/)
		]);
		expect(problemsOf({ ...valid, STORAGE_ORIGINS: 'http://files.example.com' })).toEqual([expect.stringMatching(/must use https/)]);
	});

	it('refuses the embedded database in production unless the operator accepts that it is not durable', () => {
		const durable = { durableStore: true };
		expect(() => loadConfig(valid, durable)).toThrow(/DATABASE_URL is not set: the embedded PGlite database does not flush/);
		expect(loadConfig({ ...valid, ACCEPT_NON_DURABLE_DATABASE: 'on' }, durable).databaseUrl).toBeNull();
		expect(() => loadConfig({ ...valid, ACCEPT_NON_DURABLE_DATABASE: 'off' }, durable)).toThrow(/ACCEPT_NON_DURABLE_DATABASE=on/);
		expect(() => loadConfig({ ...valid, ACCEPT_NON_DURABLE_DATABASE: 'yes' }, durable)).toThrow(
			/ACCEPT_NON_DURABLE_DATABASE must be on or off/
		);
		expect(loadConfig({ ...valid, DATABASE_URL: 'postgres://db/inbox' }, durable).databaseUrl).toBe('postgres://db/inbox');
		expect(loadConfig(valid).databaseUrl).toBeNull();
	});

	it('uses the development origin only when ORIGIN is missing', () => {
		const { ORIGIN: _origin, ...withoutOrigin } = valid;
		expect(loadConfig(withoutOrigin, { defaultOrigin: 'http://localhost:5173' }).origin).toBe('http://localhost:5173');
		expect(loadConfig(valid, { defaultOrigin: 'http://localhost:5173' }).origin).toBe('https://inbox.example.com');
	});

	it('lets cookies go without Secure only for http on the local machine', () => {
		expect(originIsLocalHttp('http://127.0.0.1:3000')).toBe(true);
		expect(originIsLocalHttp('http://localhost:5173')).toBe(true);
		expect(originIsLocalHttp('https://localhost')).toBe(false);
		expect(originIsLocalHttp('http://inbox.example.com')).toBe(false);
		expect(originIsLocalHttp('https://inbox.example.com')).toBe(false);
	});
});

describe("adapter-node's body size limit", () => {
	it('is enough from 1.5 MiB on', () => {
		expect(bodyLimitIsEnough(undefined)).toBe(false);
		expect(bodyLimitIsEnough('512K')).toBe(false);
		expect(bodyLimitIsEnough('2M')).toBe(true);
		expect(bodyLimitIsEnough('2m')).toBe(true);
		expect(bodyLimitIsEnough('1048576')).toBe(false);
		expect(bodyLimitIsEnough('Infinity')).toBe(true);
		expect(bodyLimitIsEnough('lots')).toBe(false);
	});
});

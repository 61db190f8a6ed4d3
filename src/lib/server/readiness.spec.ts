import { describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { generateX25519KeyPair, initCrypto } from '../crypto/index';
import type { Database } from './db/database';
import { storeWebhookEvents } from './db/webhook-events';
import type { CompanyKeys } from './keys/files';
import { recordCompanyKey } from './keys/company-key-state';
import { readiness, type ReadinessSources } from './readiness';

describe('readiness (docs/operations.md "Readiness")', () => {
	const databases = useDatabases('PGlite');
	const keysOf = (keyVersion: number): CompanyKeys => ({
		current: { keyVersion, ...generateX25519KeyPair() },
		previous: [],
		signingPublicKey: new Uint8Array(32)
	});

	it('is ready with the webhook queue; unready while draining, without its database, or with key files the database does not record', async () => {
		await initCrypto();
		const db = await databases.open();
		const now = Date.parse('2026-11-26T12:00:00Z');
		const current = keysOf(1);
		await recordCompanyKey(db, current, new Date(now));
		const inbox = (overrides: Partial<ReadinessSources> = {}) =>
			readiness({
				draining: false,
				db,
				companyKeys: async () => current,
				upstream: { reachable: true },
				now: () => now,
				...overrides
			});

		expect(await inbox()).toEqual({ status: 'ready', reasons: [], queue: { depth: 0, oldestAgeSeconds: 0 }, service: 'reachable' });
		await storeWebhookEvents(
			db,
			[{ eventId: 'evt_ready0001', eventType: 'message.created', deliveryId: null, attempt: 1, rawBody: '{}', idInBody: true }],
			new Date(now - 90_000)
		);
		expect((await inbox()).queue).toEqual({ depth: 1, oldestAgeSeconds: 90 });
		expect(await inbox({ upstream: { reachable: false } } as never)).toMatchObject({ status: 'ready', service: 'unreachable' });

		expect(await inbox({ draining: true })).toMatchObject({ status: 'unready', reasons: ['draining'] });
		// another process rotated the company key: these files are behind the database
		await recordCompanyKey(db, keysOf(2), new Date(now));
		expect(await inbox()).toMatchObject({ status: 'unready', reasons: ['company_key_files'] });
		const down = { query: async () => Promise.reject(new Error('connection refused')) } as unknown as Database;
		expect(await inbox({ db: down, draining: true })).toEqual({
			status: 'unready',
			reasons: ['draining', 'database'],
			queue: null,
			service: 'reachable'
		});
	});
});

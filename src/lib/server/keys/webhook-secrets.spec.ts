import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { quietLogger, recordingLogger } from '$test-support/loggers';
import type { Database } from '../db/database';
import { LEGACY_WEBHOOK_SECRET_FILE, WebhookSecrets } from './webhook-secrets';

const secret = (fill: number) => `whsec_${Buffer.alloc(32, fill).toString('base64url')}`;
const [OLD, NEW, NEWER, OPERATOR] = [secret(1), secret(2), secret(3), secret(4)];

/**
 * A rotation to NEW (OLD until 2026-11-23T10:00:00Z) as the inbox stores it, sealed under the
 * environment secret OLD: AES-256-GCM under HKDF-SHA256(OLD, salt "", info "inbox webhook secret at rest v1").
 */
const SEALED_ROTATION =
	'BwcHBwcHBwcHBwcHOWSJc7WpZPyPTpjm7__NtAZqd9sfmH3qvLd7tO_YeIPmLYE-OnCIMof0yEn9E0Tbb1V_5yTB0MUDoAoWKygFJv5DEBUw--XwbMSZjixxJecI3OZ8U6txpNCOPSUgl9_PrE5ahCnqAMW_YNhk6knGp01nDXfzx8jfdd29sdm-euyiPVbm5RV_zasY87TSiqpAFOic7r1RZDVJpYNZPSWBmCcJxGyoKMnF0R0_g3zx_AUflXbXWx8IVCMqr9f5rn9jZkfROEMbd_CXeaGqP8KvipmvIFNxbpJqlVqzTrs';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The webhook secrets of two processes on one database, both started with OLD in their environment. */
function twoProcesses(db: Database): Promise<WebhookSecrets[]> {
	const options = { now: () => Date.parse('2026-11-22T10:00:00Z'), log: quietLogger };
	return Promise.all([0, 1].map(() => WebhookSecrets.load({ current: OLD, previous: null }, db, options)));
}

/** The portal's answer to a rotation, held until `answer()`; `asked` resolves once the inbox asked for it. */
function heldPortal(webhookSecret: string) {
	let answer!: () => void;
	let markAsked!: () => void;
	const asked = new Promise<void>((resolve) => (markAsked = resolve));
	const answered = new Promise<{ webhookSecret: string; previousValidUntil: string }>(
		(resolve) => (answer = () => resolve({ webhookSecret, previousValidUntil: '2026-11-23T10:00:00Z' }))
	);
	return {
		obtain: () => {
			markAsked();
			return answered;
		},
		asked,
		answer: () => answer()
	};
}

describe.each(BACKENDS)('webhook secrets across a rotation on %s (contract 5.1 rule 4, 8)', (backend) => {
	const databases = useDatabases(backend);

	it('accepts the environment’s previous secret only until the end of the overlap the operator set (contract 5.2)', async () => {
		let now = Date.parse('2026-11-24T10:00:00Z');
		const secrets = await WebhookSecrets.load(
			{ current: NEW, previous: OLD, previousUntil: new Date('2026-11-24T12:00:00Z') },
			await databases.open(),
			{ now: () => now, log: quietLogger }
		);
		expect(secrets.accepted()).toEqual([NEW, OLD]);
		now = Date.parse('2026-11-24T12:00:00Z');
		expect(secrets.accepted()).toEqual([NEW]);
		await secrets.stop();
	});

	it('signs with the new secret, accepts both until previousValidUntil, keeps them across a restart, and stores them sealed', async () => {
		const db = await databases.open();
		let now = Date.parse('2026-11-22T10:00:00Z');
		const secrets = await WebhookSecrets.load({ current: OLD, previous: null }, db, { now: () => now, log: quietLogger });
		expect([secrets.signing(), secrets.accepted()]).toEqual([OLD, [OLD]]);
		const result = await secrets.rotate(async () => ({ webhookSecret: NEW, previousValidUntil: '2026-11-23T10:00:00Z' }));
		expect(result).toEqual({ rotatedAt: '2026-11-22T10:00:00Z', previousValidUntil: '2026-11-23T10:00:00Z' });
		expect([secrets.signing(), secrets.accepted()]).toEqual([NEW, [NEW, OLD]]);
		const stored = JSON.stringify(await db.query('select * from webhook_secret_state'));
		for (const value of [OLD, NEW, OLD.slice(6), NEW.slice(6)]) expect(stored).not.toContain(value);
		await secrets.stop();

		const restarted = await WebhookSecrets.load({ current: OLD, previous: null }, db, { now: () => now, log: quietLogger });
		expect([restarted.signing(), restarted.accepted(), restarted.previousValidUntil()]).toEqual([NEW, [NEW, OLD], '2026-11-23T10:00:00Z']);
		now = Date.parse('2026-11-23T10:00:00Z');
		expect([restarted.accepted(), restarted.previousValidUntil()]).toEqual([[NEW], null]);
		await restarted.stop();
	});

	it('another process learns a rotation at once, and a webhook waits for a rotation being saved', async () => {
		const [first, second] = await twoProcesses(await databases.open());
		const portal = heldPortal(NEW);
		const rotating = first.rotate(portal.obtain);
		// on PostgreSQL the portal is asked once the rotation holds its lock
		await portal.asked;
		const refreshed = first.refresh();
		portal.answer();
		expect(await refreshed).toBe(true);
		await rotating;
		await expect.poll(() => second.accepted()).toEqual([NEW, OLD]);
		expect(await second.refresh()).toBe(false);

		// A notification can be lost (a dropped listening connection): the refresh before a refusal reads the database.
		await second.stop();
		await first.rotate(async () => ({ webhookSecret: NEWER, previousValidUntil: '2026-11-23T11:00:00Z' }));
		expect(await second.refresh()).toBe(true);
		expect(second.accepted()).toEqual([NEWER, NEW]);
		await first.stop();
	});

	it("an operator's new SERVICE_WEBHOOK_SECRET wins over the stored rotation, which it cannot even read", async () => {
		const db = await databases.open();
		const options = { now: () => Date.parse('2026-11-22T10:00:00Z'), log: quietLogger };
		const first = await WebhookSecrets.load({ current: OLD, previous: null }, db, options);
		await first.rotate(async () => ({ webhookSecret: NEW, previousValidUntil: '2026-11-23T10:00:00Z' }));
		await first.stop();
		const { log, messages } = recordingLogger();
		const replaced = await WebhookSecrets.load({ current: OPERATOR, previous: NEW }, db, { ...options, log });
		expect([replaced.signing(), replaced.accepted()]).toEqual([OPERATOR, [OPERATOR, NEW]]);
		expect(messages('info', 'warn')).toEqual([
			"SERVICE_WEBHOOK_SECRET is newer than the stored rotation: the environment's secret is used"
		]);
		await replaced.stop();
	});

	it('takes over a rotation an earlier version kept in DATA_DIR once, and ignores a file it cannot read', async () => {
		const db = await databases.open();
		const dataDir = mkdtempSync(join(tmpdir(), 'whsec-'));
		const legacy = {
			current: NEW,
			previous: OLD,
			previousValidUntil: '2026-11-23T10:00:00Z',
			rotatedAt: '2026-11-22T09:00:00Z',
			environmentSecretHash: sha256(OLD)
		};
		await writeFile(join(dataDir, LEGACY_WEBHOOK_SECRET_FILE), JSON.stringify(legacy), { mode: 0o600 });
		const { log, messages } = recordingLogger();
		const options = { now: () => Date.parse('2026-11-22T10:00:00Z'), log, dataDir };
		const taken = await WebhookSecrets.load({ current: OLD, previous: null }, db, options);
		expect([taken.signing(), taken.accepted(), taken.rotatedAt]).toEqual([NEW, [NEW, OLD], '2026-11-22T09:00:00Z']);
		expect(messages('info', 'warn')).toEqual([
			`the webhook secret rotation of ${LEGACY_WEBHOOK_SECRET_FILE} is now kept in the database; the file can be deleted`
		]);
		await taken.rotate(async () => ({ webhookSecret: NEWER, previousValidUntil: '2026-11-23T11:00:00Z' }));
		await taken.stop();
		// The database's rotation is newer than the file now: the file is not read again.
		const restarted = await WebhookSecrets.load({ current: OLD, previous: null }, db, options);
		expect(restarted.signing()).toBe(NEWER);
		await restarted.stop();

		const other = mkdtempSync(join(tmpdir(), 'whsec-'));
		await writeFile(join(other, LEGACY_WEBHOOK_SECRET_FILE), '{ torn', { mode: 0o600 });
		const fresh = await WebhookSecrets.load({ current: OLD, previous: null }, await databases.open(), { ...options, dataDir: other });
		expect(fresh.signing()).toBe(OLD);
		expect(messages('info', 'warn').at(-1)).toBe(`${LEGACY_WEBHOOK_SECRET_FILE} cannot be read; the environment secret stays in use`);
		await fresh.stop();
	});

	it('reads a rotation stored by an earlier release: the sealing is a stored format', async () => {
		const db = await databases.open();
		await db.query(
			`insert into webhook_secret_state (id, sealed, environment_secret_hash, rotated_at) values (1, $1, $2, '2026-11-22T09:00:00Z')`,
			[SEALED_ROTATION, sha256(OLD)]
		);
		const { log, messages } = recordingLogger();
		const secrets = await WebhookSecrets.load({ current: OLD, previous: null }, db, { now: () => Date.parse('2026-11-22T10:00:00Z'), log });
		expect([secrets.signing(), secrets.accepted(), secrets.rotatedAt, messages('info', 'warn')]).toEqual([
			NEW,
			[NEW, OLD],
			'2026-11-22T09:00:00Z',
			[]
		]);
		await secrets.stop();
	});

	it('leaves a DATA_DIR rotation made under another environment secret alone: the operator’s newer one wins', async () => {
		const db = await databases.open();
		const dataDir = mkdtempSync(join(tmpdir(), 'whsec-'));
		const legacy = { current: NEW, previous: OLD, previousValidUntil: '2026-11-23T10:00:00Z', rotatedAt: '2026-11-22T09:00:00Z' };
		await writeFile(join(dataDir, LEGACY_WEBHOOK_SECRET_FILE), JSON.stringify({ ...legacy, environmentSecretHash: sha256(OLD) }), {
			mode: 0o600
		});
		const options = { now: () => Date.parse('2026-11-22T10:00:00Z'), log: quietLogger, dataDir };
		const secrets = await WebhookSecrets.load({ current: OPERATOR, previous: null }, db, options);
		expect([secrets.signing(), secrets.accepted()]).toEqual([OPERATOR, [OPERATOR]]);
		expect(await db.query('select 1 from webhook_secret_state')).toEqual([]);
		await secrets.stop();
	});

	// Two processes need PostgreSQL; PGlite's one process waits for its own rotation (the test above).
	if (backend === 'PostgreSQL')
		it('a process that cannot verify a signature waits for a rotation under way in another, whose new secret the portal already signs with', async () => {
			const db = await databases.open();
			const [rotating, verifying] = await twoProcesses(db);
			const portal = heldPortal(NEW);
			const rotation = rotating.rotate(portal.obtain);
			await portal.asked;
			const refreshed = verifying.refresh();
			// the verifying process waits on the rotation's lock until the new secret is stored
			const waiting = async () =>
				(
					await db.query<{ waiting: number }>("select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted")
				)[0].waiting;
			await expect.poll(waiting, { timeout: 10_000 }).toBe(1);
			portal.answer();
			expect(await refreshed).toBe(true);
			expect(verifying.accepted()).toEqual([NEW, OLD]);
			await rotation;
			await Promise.all([rotating.stop(), verifying.stop()]);
		});

	it('a webhook waits for the latest of two overlapping rotations', async () => {
		const db = await databases.open();
		const secrets = await WebhookSecrets.load({ current: OLD, previous: null }, db, {
			now: () => Date.parse('2026-11-22T10:00:00Z'),
			log: quietLogger
		});
		const [first, second] = [heldPortal(NEW), heldPortal(NEWER)];
		const firstRotation = secrets.rotate(first.obtain);
		// the first holds the rotation lock before the second asks for it (on PostgreSQL the two would
		// otherwise race for it, and a second that won would wait for its portal while the first waits for it)
		await first.asked;
		const secondRotation = secrets.rotate(second.obtain);
		first.answer();
		await firstRotation;
		const refreshed = secrets.refresh();
		second.answer();
		expect(await refreshed).toBe(true);
		expect(secrets.signing()).toBe(NEWER);
		await secondRotation;
		await secrets.stop();
	});
});

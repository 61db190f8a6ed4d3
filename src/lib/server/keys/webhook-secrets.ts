/**
 * The webhook secret (contract 2.3, 5.1, 5.2, 8) while it rotates: requests are signed with the current
 * secret; webhooks are accepted with the current one and, until `previousValidUntil`, the previous one.
 * A rotation made from the admin page is kept in the database (docs/operations.md "Several processes"),
 * sealed with a key derived from the environment's `SERVICE_WEBHOOK_SECRET`, and announced with NOTIFY,
 * so every process, on any machine, signs and verifies with it at once; a process also reads it again
 * before it refuses a signature, after waiting for a rotation under way in any process (an advisory
 * lock held from the portal's call until the new secret is stored). The environment's `SERVICE_WEBHOOK_SECRET(_PREVIOUS)` apply until the
 * first rotation and again whenever an operator sets a secret the stored rotation does not know. A
 * rotation an earlier version kept in `DATA_DIR/webhook-secret.json` is taken over once.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WebhookSecretRotation } from '../../inbox-api/keys';
import { isoSeconds, KEY_BYTES } from '../../crypto/rules';
import type { Database, Queryable } from '../db/database';
import { errorText, type Logger } from '../log';

/** Where an earlier version of the inbox kept a rotation, in `DATA_DIR`. */
export const LEGACY_WEBHOOK_SECRET_FILE = 'webhook-secret.json';
export const WEBHOOK_SECRET_CHANNEL = 'inbox_webhook_secret';
/**
 * The advisory lock a rotation holds on PostgreSQL from asking the portal until the new secret is stored:
 * the portal signs webhooks with the new secret from its answer on, so a process refusing a signature
 * first waits for it, whichever process rotates. Advisory locks share one key space with the others.
 */
export const WEBHOOK_SECRET_ROTATION_LOCK = 7_270_514;

/** A rotation as stored, before sealing. */
interface StoredSecrets {
	current: string;
	previous: string | null;
	previousValidUntil: string | null;
	rotatedAt: string;
}

interface SecretRow {
	sealed: string;
	environment_secret_hash: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The key that seals the stored rotation: only processes with the environment's secret can read it. */
function sealingKey(environmentSecret: string): Buffer {
	return Buffer.from(hkdfSync('sha256', environmentSecret, '', 'inbox webhook secret at rest v1', KEY_BYTES));
}

function seal(secrets: StoredSecrets, environmentSecret: string): string {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', sealingKey(environmentSecret), iv);
	const sealed = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
	return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

function open(sealed: string, environmentSecret: string): StoredSecrets {
	const bytes = Buffer.from(sealed, 'base64url');
	const decipher = createDecipheriv('aes-256-gcm', sealingKey(environmentSecret), bytes.subarray(0, 12));
	decipher.setAuthTag(bytes.subarray(12, 28));
	return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')) as StoredSecrets;
}

async function storeSecrets(db: Queryable, secrets: StoredSecrets, environmentSecret: string): Promise<void> {
	await db.query(
		`insert into webhook_secret_state (id, sealed, environment_secret_hash, rotated_at) values (1, $1, $2, $3)
		 on conflict (id) do update set sealed = excluded.sealed, environment_secret_hash = excluded.environment_secret_hash,
		 rotated_at = excluded.rotated_at`,
		[seal(secrets, environmentSecret), sha256(environmentSecret), secrets.rotatedAt]
	);
	await db.query('select pg_notify($1, $2)', [WEBHOOK_SECRET_CHANNEL, secrets.rotatedAt]);
}

/** The secrets of the environment: the current one, and during a rotation the previous one until the overlap ends. */
export interface EnvironmentSecrets {
	current: string;
	previous: string | null;
	previousUntil?: Date | null;
}

export class WebhookSecrets {
	private current: string;
	private previous: { secret: string; validUntilMs: number | null } | null;
	private rotation: Promise<unknown> | null = null;
	private stopListening: () => Promise<void> = async () => {};
	rotatedAt: string | null = null;

	private constructor(
		private readonly environment: EnvironmentSecrets,
		private readonly db: Database,
		private readonly now: () => number,
		private readonly log: Logger
	) {
		this.current = environment.current;
		this.previous = environment.previous
			? { secret: environment.previous, validUntilMs: environment.previousUntil?.getTime() ?? null }
			: null;
	}

	/** Reads the stored rotation (taking over a legacy file in `dataDir` once), and follows later ones. */
	static async load(
		environment: EnvironmentSecrets,
		db: Database,
		options: { now: () => number; log: Logger; dataDir?: string }
	): Promise<WebhookSecrets> {
		const secrets = new WebhookSecrets(environment, db, options.now, options.log);
		if (options.dataDir) await secrets.takeOverLegacyFile(options.dataDir);
		await secrets.read();
		secrets.stopListening = await db.listen(WEBHOOK_SECRET_CHANNEL, () => {
			// Stryker disable next-line all: equivalent: the error is swallowed either way; only the operator's log line differs
			secrets.read().catch((error) => {
				options.log.warn('the rotated webhook secret could not be read', { reason: errorText(error) });
			});
		});
		return secrets;
	}

	stop(): Promise<void> {
		return this.stopListening();
	}

	/** A rotation kept by an earlier version in `DATA_DIR/webhook-secret.json`, when the database has none. */
	private async takeOverLegacyFile(dataDir: string): Promise<void> {
		const text = await readFile(join(dataDir, LEGACY_WEBHOOK_SECRET_FILE), 'utf8').catch(() => null);
		if (text === null) return;
		const [existing] = await this.db.query('select 1 from webhook_secret_state where id = 1');
		if (existing) return;
		let saved: StoredSecrets & { environmentSecretHash?: string };
		try {
			saved = JSON.parse(text);
		} catch {
			this.log.warn(`${LEGACY_WEBHOOK_SECRET_FILE} cannot be read; the environment secret stays in use`);
			return;
		}
		if (!this.knows(saved, saved.environmentSecretHash)) return;
		const { current, previous, previousValidUntil, rotatedAt } = saved;
		await storeSecrets(this.db, { current, previous, previousValidUntil, rotatedAt }, this.environment.current);
		this.log.info(`the webhook secret rotation of ${LEGACY_WEBHOOK_SECRET_FILE} is now kept in the database; the file can be deleted`);
	}

	/** Whether a rotation was made under the environment's secret (an operator's newer one wins). */
	private knows(saved: StoredSecrets, environmentSecretHash: string | undefined): boolean {
		const environmentSecret = this.environment.current;
		return [saved.current, saved.previous].includes(environmentSecret) || environmentSecretHash === sha256(environmentSecret);
	}

	/** Reads the stored rotation. */
	private async read(): Promise<void> {
		const [row] = await this.db.query<SecretRow>('select sealed, environment_secret_hash from webhook_secret_state where id = 1');
		if (!row) return;
		let saved: StoredSecrets;
		try {
			saved = open(row.sealed, this.environment.current);
		} catch {
			// sealed under another environment secret: an operator set a new one, which wins
			this.log.warn("SERVICE_WEBHOOK_SECRET is newer than the stored rotation: the environment's secret is used");
			return;
		}
		if (!this.knows(saved, row.environment_secret_hash)) return;
		this.current = saved.current;
		this.previous = saved.previous
			? { secret: saved.previous, validUntilMs: saved.previousValidUntil ? Date.parse(saved.previousValidUntil) : null }
			: null;
		this.rotatedAt = saved.rotatedAt;
	}

	/** The secret that signs requests now. */
	signing(): string {
		return this.current;
	}

	/** The secrets a webhook may be signed with now: current first. */
	accepted(): string[] {
		const previous = this.previous;
		if (!previous || (previous.validUntilMs !== null && previous.validUntilMs <= this.now())) return [this.current];
		return [this.current, previous.secret];
	}

	/** Until when the previous secret is still accepted (null: none, or no end known). */
	previousValidUntil(): string | null {
		const until = this.previous?.validUntilMs;
		return until && until > this.now() ? isoSeconds(until) : null;
	}

	/**
	 * Waits for a rotation of this process and reads the stored one again (another process may have
	 * rotated); true when the secrets changed. The receiver calls it before it refuses a signature.
	 */
	async refresh(): Promise<boolean> {
		const before = this.current;
		await this.rotation?.catch(() => {});
		await this.afterRotationsElsewhere().catch(() => undefined);
		await this.read().catch(() => undefined);
		return before !== this.current;
	}

	/** Waits until no process holds the rotation lock (PGlite has one process: its own rotation was awaited). */
	private async afterRotationsElsewhere(): Promise<void> {
		if (this.db.kind === 'pglite') return;
		await this.db.withConnection(async (connection) => {
			await connection.query('select pg_advisory_lock_shared($1)', [WEBHOOK_SECRET_ROTATION_LOCK]);
			await connection.query('select pg_advisory_unlock_shared($1)', [WEBHOOK_SECRET_ROTATION_LOCK]);
		});
	}

	/** Runs `work` holding the rotation lock on PostgreSQL, on a connection of its own. */
	private underRotationLock<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
		if (this.db.kind === 'pglite') return work(this.db);
		return this.db.withConnection(async (connection) => {
			await connection.query('select pg_advisory_lock($1)', [WEBHOOK_SECRET_ROTATION_LOCK]);
			try {
				return await work(connection);
			} finally {
				await connection.query('select pg_advisory_unlock($1)', [WEBHOOK_SECRET_ROTATION_LOCK]);
			}
		});
	}

	/**
	 * Rotates: `obtain` asks the portal for a new secret (which signs webhooks from then on); the new
	 * secret and the previous one are stored before anyone else learns of it, and webhooks arriving
	 * meanwhile wait for it in `refresh`.
	 */
	async rotate(obtain: () => Promise<{ webhookSecret: string; previousValidUntil: string }>): Promise<WebhookSecretRotation> {
		const running = this.underRotationLock(async (db) => {
			const { webhookSecret, previousValidUntil } = await obtain();
			const rotatedAt = isoSeconds(this.now());
			await storeSecrets(db, { current: webhookSecret, previous: this.current, previousValidUntil, rotatedAt }, this.environment.current);
			this.previous = { secret: this.current, validUntilMs: Date.parse(previousValidUntil) };
			this.current = webhookSecret;
			this.rotatedAt = rotatedAt;
			return { rotatedAt, previousValidUntil };
		});
		this.rotation = running;
		try {
			return await running;
			// Stryker disable next-line BlockStatement: equivalent: refresh() only awaits a rotation, and one kept after it settled is awaited at once
		} finally {
			if (this.rotation === running) this.rotation = null;
		}
	}
}

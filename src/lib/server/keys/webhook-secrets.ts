/**
 * The webhook secret (contract 2.3, 5.1, 5.2, 8) while it rotates: requests are signed with the current
 * secret; webhooks are accepted with the current one and, until `previousValidUntil`, the previous one.
 * A rotation made from the admin page is kept in `DATA_DIR/webhook-secret.json` (mode 0600), so a
 * restart keeps both; the environment's `SERVICE_WEBHOOK_SECRET(_PREVIOUS)` apply until the first
 * rotation and again whenever an operator sets a secret the file does not know.
 */
import { createHash } from 'node:crypto';
import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WebhookSecretRotation } from '../../inbox-api/keys';
import type { Logger } from '../log';
import { isoSeconds } from '../../crypto/rules';

export const WEBHOOK_SECRET_FILE = 'webhook-secret.json';

interface SecretFile {
	current: string;
	previous: string | null;
	previousValidUntil: string | null;
	rotatedAt: string;
	/** SHA-256 of the environment's secret when the file was written: a different one set later wins. */
	environmentSecretHash: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The secrets of the environment: the current one, and during a rotation the previous one until the overlap ends. */
export interface EnvironmentSecrets {
	current: string;
	previous: string | null;
	previousUntil?: Date | null;
}

export class WebhookSecrets {
	private current: string;
	private previous: { secret: string; validUntilMs: number | null } | null;
	private fileSeen = '';
	private rotation: Promise<unknown> | null = null;
	rotatedAt: string | null = null;

	private constructor(
		private readonly environment: EnvironmentSecrets,
		private readonly dataDir: string,
		private readonly now: () => number,
		private readonly log: Logger
	) {
		this.current = environment.current;
		this.previous = environment.previous
			? { secret: environment.previous, validUntilMs: environment.previousUntil?.getTime() ?? null }
			: null;
	}

	static async load(
		environment: EnvironmentSecrets,
		dataDir: string,
		options: { now: () => number; log: Logger }
	): Promise<WebhookSecrets> {
		const secrets = new WebhookSecrets(environment, dataDir, options.now, options.log);
		await secrets.readFile();
		return secrets;
	}

	private get path(): string {
		return join(this.dataDir, WEBHOOK_SECRET_FILE);
	}

	/** Reads the file when it changed. */
	private async readFile(): Promise<void> {
		const info = await stat(this.path).catch(() => undefined);
		if (!info) return;
		const seen = `${info.mtimeMs}:${info.ino}:${info.size}`;
		if (seen === this.fileSeen) return;
		this.fileSeen = seen;
		if (info.mode & 0o077) {
			this.log.warn(`${this.path} is readable by group or others; run: chmod 600 ${this.path}`);
		}
		let saved: SecretFile;
		try {
			saved = JSON.parse(await readFile(this.path, 'utf8')) as SecretFile;
		} catch (error) {
			this.log.warn('the rotated webhook secret cannot be read; the environment secret stays in use', { reason: String(error) });
			return;
		}
		const environmentSecret = this.environment.current;
		const known = [saved.current, saved.previous].includes(environmentSecret) || saved.environmentSecretHash === sha256(environmentSecret);
		if (!known) {
			this.log.warn(`SERVICE_WEBHOOK_SECRET is newer than ${WEBHOOK_SECRET_FILE}: the environment's secret is used`);
			return;
		}
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
	 * Waits for a rotation of this process and reads the file again (another process may have rotated);
	 * true when the secrets changed. The receiver calls it before it refuses a signature.
	 */
	async refresh(): Promise<boolean> {
		const before = this.current;
		await this.rotation?.catch(() => {});
		await this.readFile().catch(() => undefined);
		return before !== this.current;
	}

	/**
	 * Rotates: `obtain` asks the portal for a new secret (which signs webhooks from then on); the new
	 * secret and the previous one are written before anyone else learns of it, and webhooks arriving
	 * meanwhile wait for it in `refresh`.
	 */
	async rotate(obtain: () => Promise<{ webhookSecret: string; previousValidUntil: string }>): Promise<WebhookSecretRotation> {
		const running = (async () => {
			const { webhookSecret, previousValidUntil } = await obtain();
			const rotatedAt = isoSeconds(this.now());
			const saved: SecretFile = {
				current: webhookSecret,
				previous: this.current,
				previousValidUntil,
				rotatedAt,
				environmentSecretHash: sha256(this.environment.current)
			};
			const partial = `${this.path}.${process.pid}.tmp`;
			await writeFile(partial, `${JSON.stringify(saved, null, '\t')}\n`, { mode: 0o600 });
			await chmod(partial, 0o600);
			await rename(partial, this.path);
			this.previous = { secret: this.current, validUntilMs: Date.parse(previousValidUntil) };
			this.current = webhookSecret;
			this.rotatedAt = rotatedAt;
			return { rotatedAt, previousValidUntil };
		})();
		this.rotation = running;
		try {
			return await running;
		} finally {
			if (this.rotation === running) this.rotation = null;
		}
	}
}

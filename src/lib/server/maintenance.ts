/**
 * The server's periodic housekeeping (docs/operations.md "Retention"): expired sessions and invitation
 * secrets, old live events, operations, webhook events, login attempts, spent usage windows and the rows
 * of live streams whose process died (usage/caps.ts) are deleted in batches, at
 * start and every ten minutes, by one process at a time (an advisory lock on PostgreSQL; a PGlite
 * database has one process). A failing step is logged and the others still run.
 */
import { deleteExpiredSessions } from './auth/sessions';
import type { Database } from './db/database';
import { deleteExpiredInviteSecrets } from './db/invites';
import { pruneLiveEvents } from './db/live-events';
import { pruneOperations } from './db/operations';
import { pruneWebhookEvents } from './db/webhook-events';
import { errorText, type Logger } from './log';
import { pruneUsage } from './usage/caps';

export const MAINTENANCE_MS = 10 * 60_000;
/**
 * The advisory lock of a maintenance run, shared by every process of the inbox. Advisory locks share one
 * key space: it must differ from every other key (LIVE_ORDER_LOCK orders live events; sharing it made
 * every live event wait for a whole maintenance run).
 */
export const MAINTENANCE_LOCK = 7_270_503;

type Step = (db: Database, at: Date) => Promise<unknown>;

export class Maintenance {
	private timer: ReturnType<typeof setInterval> | undefined;
	private readonly steps: Step[];

	constructor(
		private readonly options: { db: Database; log: Logger; now: () => number; pruneLoginAttempts: (at: Date) => Promise<unknown> }
	) {
		const pruneLoginAttempts: Step = (_db, at) => options.pruneLoginAttempts(at);
		this.steps = [
			deleteExpiredSessions,
			pruneLiveEvents,
			pruneOperations,
			deleteExpiredInviteSecrets,
			pruneWebhookEvents,
			pruneLoginAttempts,
			pruneUsage
		];
	}

	/** Runs once now, then every `MAINTENANCE_MS`. */
	start(): void {
		void this.run();
		this.timer = setInterval(() => void this.run(), MAINTENANCE_MS);
		this.timer.unref?.();
	}

	stop(): void {
		clearInterval(this.timer);
	}

	/** Runs every step, unless another process is running them now; false then. */
	async run(): Promise<boolean> {
		const { db, log } = this.options;
		if (db.kind === 'pglite') {
			await this.runSteps();
			// PostgreSQL vacuums and analyzes by itself; PGlite does not.
			await db.exec('vacuum (analyze)').catch((error) => log.warn('vacuum failed', { reason: errorText(error) }));
			return true;
		}
		// A session-level lock: held on its own connection for the whole run, released when it ends or dies.
		return db
			.withConnection(async (connection) => {
				const [{ locked }] = await connection.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [MAINTENANCE_LOCK]);
				if (!locked) return false;
				try {
					await this.runSteps();
					return true;
				} finally {
					await connection.query('select pg_advisory_unlock($1)', [MAINTENANCE_LOCK]);
				}
			})
			.catch((error) => {
				log.warn('maintenance failed', { reason: errorText(error) });
				return false;
			});
	}

	private async runSteps(): Promise<void> {
		const { db, log } = this.options;
		const at = new Date(this.options.now());
		for (const step of this.steps) {
			await step(db, at).catch((error) => log.warn('maintenance step failed', { step: step.name, reason: errorText(error) }));
		}
	}
}

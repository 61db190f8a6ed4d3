/**
 * The server's periodic housekeeping (docs/operations.md): expired sessions and invitation secrets,
 * old live events, operations, webhook events and login attempts are deleted, at start and every ten
 * minutes. A failing step is logged and the others still run.
 */
import { deleteExpiredSessions } from './auth/sessions';
import type { Database } from './db/database';
import { deleteExpiredInviteSecrets } from './db/invites';
import { pruneLiveEvents } from './db/live-events';
import { pruneOperations } from './db/operations';
import { pruneWebhookEvents } from './db/webhook-events';
import { errorText, type Logger } from './log';

export const MAINTENANCE_MS = 10 * 60_000;

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
			pruneLoginAttempts
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

	async run(): Promise<void> {
		const { db, log } = this.options;
		const at = new Date(this.options.now());
		for (const step of this.steps) {
			await step(db, at).catch((error) => log.warn('maintenance step failed', { step: step.name, reason: errorText(error) }));
		}
		// PostgreSQL vacuums and analyzes by itself; PGlite does not.
		if (db.kind === 'pglite') await db.exec('vacuum (analyze)').catch((error) => log.warn('vacuum failed', { reason: errorText(error) }));
	}
}

/**
 * Shapes of the inbox server's admin API (docs/inbox-api.md §12) that the server builds and the admin
 * pages read, declared once for both sides. Types only: nothing here runs.
 */

/** A grant job: wraps of earlier conversations for the agents a roster added. */
export interface GrantJobView {
	jobId: string;
	rosterVersion: number;
	agentKeyIds: string[];
	state: 'running' | 'done' | 'failed';
	total: number;
	done: number;
	failed: number;
	startedAt: string;
	finishedAt: string | null;
	lastError: string | null;
}

/**
 * The audit log as the inbox server's admin API carries it (docs/inbox-api.md §12, "Audit log"), declared
 * once for the server that builds the page and the admin page that verifies its chain. Types only.
 */
import type { AuditEntry } from '../audit/chain';

/** `GET /api/admin/audit`: entries with their hashes, newest first (oldest first with `after`). */
export interface AuditPage {
	data: AuditEntry[];
	/** The page is full, so more entries may lie beyond it. */
	hasMore: boolean;
}

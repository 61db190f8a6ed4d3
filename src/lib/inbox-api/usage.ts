/**
 * What each account spends of what the team shares, as `GET /api/admin/usage` answers it (docs/inbox-api.md
 * §1 "Caps"): the caps in force and every account that used something in the current windows. Types only.
 */

/** The caps per account (the server's configuration, docs/operations.md). */
export interface UsageCaps {
	/** Upload slots (`POST /v1/conversations/{id}/attachments`) one account may start in a clock hour. */
	uploadsPerHour: number;
	/** Writes through the signing proxy (sends, read receipts, typing, closing, uploads) one account may make in a minute. */
	writesPerMinute: number;
	/** Live streams (`GET /api/events`) open at once for one browser session. */
	streamsPerSession: number;
	/** Live streams open at once for one account, across its sessions. */
	streamsPerAccount: number;
}

export interface AccountUsage {
	accountId: string;
	displayName: string;
	uploadsThisHour: number;
	writesThisMinute: number;
	openStreams: number;
}

export interface UsageOverview {
	caps: UsageCaps;
	data: AccountUsage[];
}

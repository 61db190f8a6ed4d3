/**
 * The inbox server's own records as the browser receives them (docs/inbox-api.md §2–§7): accounts,
 * the inbox's view of conversations, stored messages and invitations. Accounts and conversations are
 * declared with the server in src/lib/inbox-api/records.ts; `/v1` shapes live in src/lib/wire/v1.ts.
 */
export type { Envelope } from '../crypto/message';
export type { Wrap } from '../crypto/wrap';
export type {
	AccountView,
	AgentWrapForMe,
	ConversationPage,
	ConversationView,
	Invitation,
	RewrapState,
	Role,
	SessionInfo,
	StoredMessage,
	TeamMember,
	Trust
} from '../inbox-api/records';
export type { ConversationStatus } from '../wire/v1-records';

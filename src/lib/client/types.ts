/**
 * The inbox server's own records as the browser receives them (docs/inbox-api.md §2–§7): accounts,
 * the inbox's view of conversations, stored messages and invitations. Accounts and conversations are
 * declared with the server in src/lib/inbox-api/records.ts; `/v1` shapes live in src/lib/wire/v1.ts.
 */
import type { Envelope } from '../crypto/message';
import type { Wrap } from '../crypto/wrap';
import type {
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
import type { ConversationStatus } from '../wire/v1-records';

export type {
	AccountView,
	AgentWrapForMe,
	ConversationPage,
	ConversationView,
	ConversationStatus,
	Envelope,
	Invitation,
	RewrapState,
	Role,
	SessionInfo,
	StoredMessage,
	TeamMember,
	Trust,
	Wrap
};

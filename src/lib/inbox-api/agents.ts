/**
 * Agents, their invitation links and the signing key's public half as the inbox server's admin API
 * carries them (docs/inbox-api.md §12, "Agents and invitations"), declared once for the server that
 * builds them and the pages that read them. Types only: nothing here runs.
 */
import type { Role } from './records';

/** An account as the admins' agent list shows it. */
export interface AdminAgent {
	accountId: string;
	username: string;
	displayName: string;
	role: Role;
	disabled: boolean;
	agentKeyId: string | null;
	agentPublicKey: string | null;
	/** b64u of the key's fingerprint (contract 2.2). */
	fingerprint: string | null;
	/** In the latest accepted roster, with this same key. */
	inRoster: boolean;
	lastActiveAt: string | null;
}

/** `GET /api/admin/agents`. */
export interface AdminAgentList {
	data: AdminAgent[];
}

/** A link not used yet, as `GET /api/admin/agent-invitations` lists it (never its token). */
export interface PendingAgentInvitation {
	invitationId: string;
	displayName: string;
	role: Role;
	createdAt: string;
	expiresAt: string;
	createdByName: string | null;
}

/** The body of `POST /api/admin/agent-invitations`. */
export interface AgentInvitationRequest {
	displayName: string;
	role: Role;
	/** 1 … 168. */
	validForHours: number;
}

/** The answer to `POST /api/admin/agent-invitations`: the link, shown once. */
export interface AgentInvitation {
	invitationId: string;
	/** `<ORIGIN>/join#t=<token>`: shown once. */
	url: string;
	expiresAt: string;
}

/** The body of `POST /api/join`: the invited person's own username and password; the answer is a session. */
export interface JoinRequest {
	token: string;
	username: string;
	password: string;
}

/** `GET /api/admin/signing-key`: `signing.pub` only (contract 2.1), never the secret half. */
export interface SigningPublicKey {
	/** b64u of `signing.pub`. */
	publicKey: string;
	fingerprint: string;
	fingerprintHex: string;
}

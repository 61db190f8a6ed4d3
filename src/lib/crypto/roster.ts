/**
 * The agent roster (contract 2.9, 6.7): validation (ids, keys, duplicates, at most 1000 agents,
 * `issuedAt` exactly `YYYY-MM-DDTHH:MM:SSZ`, version range), the statement with agents sorted by
 * `agentKeyId` bytes, signing with `signing.key` and verification with `signing.pub`.
 */
import { fail } from '../errors';
import { b64uDecodeLength, b64uEncode } from './encoding';
import { DOMAIN, MAX_ROSTER_AGENTS, requireAgentKeyId, requireId, requireIssuedAt, requireKeyVersion } from './rules';
import { signStatement, verifyStatement } from './signatures';

export interface RosterAgent {
	agentKeyId: string;
	/** b64u of the agent's X25519 public key. */
	publicKey: string;
}

export interface RosterInput {
	companyId: string;
	rosterVersion: number;
	issuedAt: string;
	agents: readonly RosterAgent[];
}

export interface SignedRoster extends RosterInput {
	signature: string;
}

/** Validates a roster and returns it with its agents in statement order. */
export function validateRoster(input: RosterInput): RosterInput {
	const companyId = requireId(input.companyId, 'companyId');
	const rosterVersion = requireKeyVersion(input.rosterVersion, 'rosterVersion');
	const issuedAt = requireIssuedAt(input.issuedAt);
	if (!Array.isArray(input.agents)) fail('INVALID_INPUT', 'agents must be a list');
	if (input.agents.length > MAX_ROSTER_AGENTS) fail('INVALID_INPUT', `a roster holds at most ${MAX_ROSTER_AGENTS} agents`);
	const ids = new Set<string>();
	const keys = new Set<string>();
	const agents = input.agents.map((agent) => {
		const agentKeyId = requireAgentKeyId(agent?.agentKeyId);
		// Strict decoding makes the text canonical, so equal keys have equal spellings.
		const publicKey = b64uEncode(b64uDecodeLength(agent.publicKey, 32, `publicKey of ${agentKeyId}`));
		if (ids.has(agentKeyId)) fail('INVALID_INPUT', `agentKeyId ${agentKeyId} appears twice`);
		if (keys.has(publicKey)) fail('INVALID_INPUT', `the public key of ${agentKeyId} appears twice`);
		ids.add(agentKeyId);
		keys.add(publicKey);
		return { agentKeyId, publicKey };
	});
	// agentKeyIds are ASCII and unique: the default sort's UTF-16 code unit order is their byte order.
	const byId = new Map(agents.map((agent) => [agent.agentKeyId, agent]));
	return { companyId, rosterVersion, issuedAt, agents: [...byId.keys()].sort().map((id) => byId.get(id) as RosterAgent) };
}

/** `"Service|v1|agent-roster|" + companyId + "|" + rosterVersion + "|" + issuedAt + "|" + agents`. */
export function rosterStatement(input: RosterInput): string {
	const roster = validateRoster(input);
	const agents = roster.agents.map((agent) => `${agent.agentKeyId}:${agent.publicKey}`).join(',');
	return `${DOMAIN}|agent-roster|${roster.companyId}|${roster.rosterVersion}|${roster.issuedAt}|${agents}`;
}

export function signRoster(input: RosterInput, signingSecretKey: Uint8Array): string {
	return signStatement(rosterStatement(input), signingSecretKey);
}

/** Validation first (`INVALID_INPUT`), then the signature (`SIGNATURE_INVALID`). */
export function verifyRoster(roster: SignedRoster, signingPublicKey: Uint8Array): void {
	verifyStatement(rosterStatement(roster), roster.signature, signingPublicKey);
}

/**
 * The roster and agent wraps (contract 2.9, 6.7; docs/contract-gaps.md §7): `POST /v1/roster`
 * validated and verified with the company's `signing.pub`, each version the previous + 1;
 * `POST …/agent-wraps` for agents of the current roster; both readable back.
 */
import {
	ContractError,
	isIntegerIn,
	MAX_KEY_VERSION,
	b64uDecode,
	validateRoster,
	verifyRoster,
	type RosterAgent
} from '../../lib/crypto/index';
import { findConversation, requireWrap } from '../service/conversations';
import type { Company, StoredAgentWrap, StoredRoster } from '../state';
import { ok, type V1Handler } from './request';

export const MAX_AGENT_WRAPS = 1000;

export function latestRoster(company: Company): StoredRoster | null {
	return company.rosters.at(-1) ?? null;
}

export function rosterBody(roster: StoredRoster) {
	return { rosterVersion: roster.rosterVersion, issuedAt: roster.issuedAt, agents: roster.agents, signature: roster.signature };
}

export const uploadRoster: V1Handler = (ctx, request) => {
	const { company, body } = request;
	const input = {
		companyId: company.companyId,
		rosterVersion: body.rosterVersion as number,
		issuedAt: body.issuedAt as string,
		agents: body.agents as RosterAgent[],
		signature: body.signature as string
	};
	let agents: RosterAgent[];
	try {
		agents = validateRoster(input).agents as RosterAgent[];
		verifyRoster(input, b64uDecode(company.signingPublicKey));
	} catch (error) {
		if (error instanceof ContractError) throw new ContractError(error.code, error.message, 400);
		throw error;
	}
	const expected = (latestRoster(company)?.rosterVersion ?? 0) + 1;
	if (input.rosterVersion !== expected) {
		throw new ContractError('ROSTER_VERSION_CONFLICT', `rosterVersion must be ${expected} (the previous + 1), got ${input.rosterVersion}`);
	}
	const roster: StoredRoster = {
		rosterVersion: input.rosterVersion,
		issuedAt: input.issuedAt,
		agents,
		signature: input.signature,
		storedAtMs: ctx.clock.nowMs()
	};
	company.rosters.push(roster);
	company.servedRosterOverride = null;
	ctx.store.changed('companies', company.companyId);
	return ok(rosterBody(roster), 201);
};

export const getRoster: V1Handler = (_ctx, request) => {
	// A compromised service (the control API's served roster) hands its forgery to the inbox too.
	const roster = request.company.servedRosterOverride ?? latestRoster(request.company);
	if (!roster) throw new ContractError('NOT_FOUND', 'no roster was uploaded yet');
	return ok(rosterBody(roster));
};

export const uploadAgentWraps: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	const { rosterVersion, wraps } = request.body;
	if (!isIntegerIn(rosterVersion, 1, MAX_KEY_VERSION))
		throw new ContractError('INVALID_REQUEST', 'rosterVersion must be an integer from 1 to 2^31-1');
	if (!Array.isArray(wraps) || wraps.length < 1 || wraps.length > MAX_AGENT_WRAPS) {
		throw new ContractError('INVALID_REQUEST', `wraps must be a list of 1 to ${MAX_AGENT_WRAPS} agent wraps`);
	}
	const seen = new Set<string>();
	for (const item of wraps) {
		const agentKeyId = (item as { agentKeyId?: unknown })?.agentKeyId;
		if (typeof agentKeyId !== 'string') throw new ContractError('INVALID_REQUEST', 'every wrap needs an agentKeyId');
		if (seen.has(agentKeyId)) throw new ContractError('INVALID_REQUEST', `agentKeyId ${agentKeyId} appears twice`);
		seen.add(agentKeyId);
	}
	if (conversation.status === 'pending') throw new ContractError('CONVERSATION_PENDING', 'the conversation has not started yet');
	const roster = latestRoster(request.company);
	if (!roster || roster.rosterVersion !== rosterVersion) {
		throw new ContractError(
			'ROSTER_VERSION_CONFLICT',
			`rosterVersion must be the current roster's (${roster?.rosterVersion ?? 'none yet'})`
		);
	}
	const inRoster = new Set(roster.agents.map((agent) => agent.agentKeyId));
	const accepted: StoredAgentWrap[] = wraps.map((item: { agentKeyId: string; wrap?: unknown }) => {
		if (!inRoster.has(item.agentKeyId))
			throw new ContractError('AGENT_NOT_IN_ROSTER', `${item.agentKeyId} is not in roster ${rosterVersion}`);
		return { agentKeyId: item.agentKeyId, rosterVersion, wrap: requireWrap(conversation, item.wrap, `wrap of ${item.agentKeyId}`) };
	});
	const replaced = new Set(accepted.map((wrap) => wrap.agentKeyId));
	conversation.agentWraps = [...conversation.agentWraps.filter((wrap) => !replaced.has(wrap.agentKeyId)), ...accepted];
	conversation.agentWrapUploads = (conversation.agentWrapUploads ?? 0) + 1;
	ctx.store.changed('conversations', conversation.conversationId);
	return ok({ conversationId: conversation.conversationId, stored: accepted.length });
};

export const listAgentWraps: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	return ok({ conversationId: conversation.conversationId, wraps: conversation.agentWraps });
};

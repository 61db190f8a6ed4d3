/**
 * The simulated customer's app redeeming invitations (contract 1.4, 2.4, 6.3, 6.4, 6.6, 6.7): it
 * checks the company key (platform signature, and `fp` of the link), generates K and its own key
 * pair, seals K for the company, itself and every agent of the latest roster that verifies with the
 * pinned signing key (never an older version than it saw), and binds its key to the invitation.
 */
import {
	b64uDecode,
	b64uEncode,
	computeInviteBinding,
	constantTimeEqual,
	ContractError,
	fingerprint,
	generateX25519KeyPair,
	parseInviteLinkFragment,
	sealConversationKey,
	sodium,
	verifyCompanyKeySignature,
	verifyRoster,
	type X25519KeyPair,
	KEY_BYTES
} from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { normalizeShortCode } from '../ids';
import { redeemableInvite, startConversation } from '../service/conversations';
import type { AppMemory, Company, Conversation, Invite, StoredAgentWrap } from '../state';

/** A conversation key is versioned 1 today (contract 9). */
export const CONVERSATION_KEY_VERSION = 1;

export interface RedeemInput {
	link?: unknown;
	shortCode?: unknown;
}

interface Resolved {
	invite: Invite;
	/** From the link's fragment; absent when the customer typed the short code. */
	inviteSecret: Uint8Array | null;
	linkFingerprint: Uint8Array | null;
}

/** Finds the invitation of a link (`…/invite/{inviteId}#s=…&fp=…`) or of a typed short code. */
export function resolveInvite(ctx: SimContext, input: RedeemInput): Resolved {
	if (typeof input.link === 'string') {
		const fragment = parseInviteLinkFragment(input.link);
		let inviteId: string | undefined;
		try {
			inviteId = new URL(fragment.inviteUrl).pathname.match(/^\/invite\/([^/]+)$/)?.[1];
		} catch {
			inviteId = undefined;
		}
		const invite = inviteId === undefined ? undefined : ctx.store.invites.get(inviteId);
		if (!invite) throw new ContractError('NOT_FOUND', 'the link names no invitation of this service');
		return { invite, inviteSecret: fragment.inviteSecret, linkFingerprint: fragment.fingerprint };
	}
	if (typeof input.shortCode === 'string') {
		const inviteId = ctx.store.inviteByShortCode.get(normalizeShortCode(input.shortCode));
		const invite = inviteId === undefined ? undefined : ctx.store.invites.get(inviteId);
		if (!invite) throw new ContractError('NOT_FOUND', 'no invitation has this short code');
		return { invite, inviteSecret: null, linkFingerprint: null };
	}
	throw new ContractError('INVALID_REQUEST', 'give the invitation link or its short code');
}

/** The company key the app trusts: signed by the platform, and the one the link's `fp` names. */
function trustedCompanyKey(ctx: SimContext, company: Company, linkFingerprint: Uint8Array | null): Uint8Array {
	const { keyVersion, publicKey, platformSignature } = company.currentKey;
	const key = b64uDecode(publicKey);
	verifyCompanyKeySignature(
		{ companyId: company.companyId, keyVersion, publicKey: key },
		platformSignature,
		b64uDecode(ctx.store.platform.publicKey)
	);
	if (linkFingerprint !== null && !constantTimeEqual(linkFingerprint, fingerprint(key))) {
		throw new ContractError('KEY_MISMATCH', "the link's fingerprint does not match the business's current key", 409);
	}
	return key;
}

/** What the app remembers of the business, pinning its signing key at first contact. */
export function appMemoryOf(ctx: SimContext, company: Company): AppMemory {
	let memory = ctx.store.appMemory.get(company.companyId);
	if (!memory) {
		memory = { signingPublicKey: company.signingPublicKey, lastSeenRosterVersion: 0 };
		ctx.store.setAppMemory(company.companyId, memory);
	}
	return memory;
}

/**
 * Wraps of K for the agents of the roster the service serves, if it verifies with the pinned key and
 * is not older than the last one seen; otherwise none, with the reason.
 */
export function sealForRoster(
	ctx: SimContext,
	company: Company,
	conversationKey: Uint8Array,
	conversationId: string
): { wraps: StoredAgentWrap[]; rosterVersion: number | null; refusal: string | null } {
	const roster = company.servedRosterOverride ?? company.rosters.at(-1) ?? null;
	if (!roster) return { wraps: [], rosterVersion: null, refusal: null };
	const memory = appMemoryOf(ctx, company);
	try {
		verifyRoster({ companyId: company.companyId, ...roster }, b64uDecode(memory.signingPublicKey));
	} catch (error) {
		const code = error instanceof ContractError ? error.code : 'INVALID_INPUT';
		return {
			wraps: [],
			rosterVersion: null,
			refusal: `roster ${roster.rosterVersion} does not verify with the pinned signing key (${code})`
		};
	}
	if (roster.rosterVersion < memory.lastSeenRosterVersion) {
		return {
			wraps: [],
			rosterVersion: null,
			refusal: `roster ${roster.rosterVersion} is older than version ${memory.lastSeenRosterVersion} seen before`
		};
	}
	memory.lastSeenRosterVersion = roster.rosterVersion;
	ctx.store.changed('appMemory', company.companyId);
	const wraps = roster.agents.map((agent) => ({
		agentKeyId: agent.agentKeyId,
		rosterVersion: roster.rosterVersion,
		wrap: sealConversationKey({
			conversationKey,
			conversationId,
			keyVersion: CONVERSATION_KEY_VERSION,
			recipientPublicKey: b64uDecode(agent.publicKey)
		})
	}));
	return { wraps, rosterVersion: roster.rosterVersion, refusal: null };
}

export interface Redemption {
	conversation: Conversation;
	keyPair: X25519KeyPair;
	rosterVersion: number | null;
	rosterRefusal: string | null;
}

/** Redeems an invitation or a re-invitation on a new device (a fresh key pair). */
export function redeemOnNewDevice(ctx: SimContext, resolved: Resolved): Redemption {
	const { invite, inviteSecret, linkFingerprint } = resolved;
	const conversation = redeemableInvite(ctx, invite);
	const company = ctx.store.companies.get(invite.companyId) as Company;
	const keyPair = generateX25519KeyPair();
	const userPublicKey = b64uEncode(keyPair.publicKey);
	const conversationId = conversation.conversationId;
	let wrapForCompany = conversation.wrapForCompany;
	let wrapForUser = null;
	let sealed: ReturnType<typeof sealForRoster> = { wraps: [], rosterVersion: null, refusal: null };
	if (!invite.isReinvite) {
		const companyKey = trustedCompanyKey(ctx, company, linkFingerprint);
		appMemoryOf(ctx, company);
		const conversationKey = sodium().randombytes_buf(KEY_BYTES);
		const seal = (recipientPublicKey: Uint8Array) =>
			sealConversationKey({ conversationKey, conversationId, keyVersion: CONVERSATION_KEY_VERSION, recipientPublicKey });
		wrapForCompany = seal(companyKey);
		wrapForUser = seal(keyPair.publicKey);
		sealed = sealForRoster(ctx, company, conversationKey, conversationId);
		conversationKey.fill(0);
	} else {
		trustedCompanyKey(ctx, company, linkFingerprint);
	}
	const inviteBinding =
		inviteSecret === null || wrapForCompany === null
			? null
			: b64uEncode(computeInviteBinding({ inviteSecret, conversationId, userPublicKey: keyPair.publicKey, wrapForCompany }));
	startConversation(ctx, invite, conversation, {
		userPublicKey,
		wrapForUser,
		wrapForCompany: wrapForCompany ?? undefined,
		inviteBinding,
		agentWraps: sealed.wraps
	});
	return { conversation, keyPair, rosterVersion: sealed.rosterVersion, rosterRefusal: sealed.refusal };
}

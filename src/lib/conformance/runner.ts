/**
 * The conformance runner (contract 9.1, vectors/README.md): turns a `service-v1-conformance` file
 * into named cases and runs them against any ConformanceImplementation. A case with `error` must
 * fail with exactly that code; a case without must reproduce every expected value it carries.
 * Unknown groups and mutations make the whole file unusable (VectorFileError), never a silent pass.
 */
import { b64uDecode, b64uEncode } from '../crypto/encoding';
import { codeOf } from '../errors';
import type { RosterInput } from '../crypto/roster';
import type { ConformanceImplementation } from './implementation';

export const ATTACHMENT_CHUNK_ON_WIRE = 65_552;

/** The file cannot be used: unreadable, wrong format, or a group or mutation we do not know. */
export class VectorFileError extends Error {
	override readonly name = 'VectorFileError';
}

export interface CaseResult {
	group: string;
	name: string;
	ok: boolean;
	detail: string;
}

export interface ConformanceReport {
	file: string;
	total: number;
	passed: number;
	failed: number;
	results: CaseResult[];
}

export interface ConformanceCase {
	group: string;
	name: string;
	/** Resolves with a detail line, or rejects with what differed. */
	run(implementation: ConformanceImplementation): Promise<string>;
}

type VectorCase = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the file is JSON checked field by field below

class Mismatch extends Error {}

/** JSON with object keys sorted, so field order never decides equality. */
function canonicalJson(value: unknown): string | undefined {
	return JSON.stringify(value, (_key, item) =>
		item && typeof item === 'object' && !Array.isArray(item) && !(item instanceof Uint8Array)
			? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: item
	);
}

function expectEqual(what: string, actual: unknown, expected: unknown): void {
	const a = canonicalJson(actual);
	const e = canonicalJson(expected);
	if (a !== e) throw new Mismatch(`${what}: expected ${clip(e)}, got ${clip(a)}`);
}

function clip(text: string | undefined): string {
	if (text === undefined) return 'undefined';
	return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Runs `operation`, which must fail with `code`, and says so. */
async function expectError(code: string, operation: () => Promise<unknown>): Promise<string> {
	try {
		await operation();
	} catch (error) {
		const actual = codeOf(error) ?? (error as { code?: string })?.code;
		if (actual === code) return `fails with ${code}`;
		throw new Mismatch(`expected ${code}, got ${actual ?? 'an error without code'}: ${(error as Error)?.message}`);
	}
	throw new Mismatch(`expected ${code}, but it succeeded`);
}

/** `byte[i] = (i*31 + 7) & 255`. */
export function attachmentPattern(size: number): Uint8Array {
	const out = new Uint8Array(size);
	for (let i = 0; i < size; i++) out[i] = (i * 31 + 7) & 255;
	return out;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
	if (a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

/** Pieces of varied sizes, so the streaming decryptor sees chunk boundaries fall mid-piece. */
function splitIntoPieces(data: Uint8Array): Uint8Array[] {
	const sizes = [1, 7, 4096, 65_551, 65_553, 100_000];
	const pieces: Uint8Array[] = [];
	for (let offset = 0, i = 0; offset < data.length; i++) {
		const size = sizes[i % sizes.length];
		pieces.push(data.subarray(offset, offset + size));
		offset += size;
	}
	return pieces;
}

const parseAgents = (agents: unknown) => (typeof agents === 'string' ? JSON.parse(agents) : agents);

function rosterOf(c: VectorCase, agents = parseAgents(c.agents)): RosterInput {
	return { companyId: c.companyId, rosterVersion: c.rosterVersion, issuedAt: c.issuedAt, agents };
}

async function encryptBase(implementation: ConformanceImplementation, base: VectorCase) {
	const plaintext = attachmentPattern(base.size);
	const result = await implementation.encryptAttachment({
		plaintext,
		attachmentId: base.attachmentId,
		fileKey: base.fileKey,
		nonceBase: base.nonceBase
	});
	return { plaintext, ...result };
}

function applyMutation(mutation: VectorCase, ciphertext: Uint8Array, meta: Record<string, unknown>) {
	switch (mutation.op) {
		case 'flipByte': {
			const copy = ciphertext.slice();
			copy[mutation.offset] ^= 0x01;
			return { ciphertext: copy, meta };
		}
		case 'truncate':
			return { ciphertext: ciphertext.slice(0, mutation.length), meta };
		case 'swapChunks': {
			const copy = ciphertext.slice();
			const chunk = (index: number) => ciphertext.subarray(index * ATTACHMENT_CHUNK_ON_WIRE, (index + 1) * ATTACHMENT_CHUNK_ON_WIRE);
			copy.set(chunk(mutation.b), mutation.a * ATTACHMENT_CHUNK_ON_WIRE);
			copy.set(chunk(mutation.a), mutation.b * ATTACHMENT_CHUNK_ON_WIRE);
			return { ciphertext: copy, meta };
		}
		case 'meta':
			return { ciphertext, meta: { ...meta, ...mutation.set } };
		default:
			throw new VectorFileError(`unknown mutation op ${JSON.stringify(mutation.op)}`);
	}
}

const KNOWN_MUTATIONS = new Set(['flipByte', 'truncate', 'swapChunks', 'meta']);

type GroupCheck = (implementation: ConformanceImplementation, c: VectorCase, file: VectorFileContent) => Promise<string>;

interface VectorFileContent {
	groups: Record<string, VectorCase[]>;
	hmac?: { webhooks?: VectorCase[]; requests?: VectorCase[] };
}

const openWrap: GroupCheck = async (impl, c) => {
	const open = () => impl.openConversationKey({ wrap: c.wrap, conversationId: c.conversationId, recipientKeys: c.recipientKeys });
	if (c.error) return expectError(c.error, open);
	expectEqual('conversation key', await open(), c.conversationKey);
	return 'opens K';
};

const GROUPS: Record<string, GroupCheck> = {
	async keys(impl, c) {
		const pair = await impl.keyPairFromSeed(c.seed);
		expectEqual('secretKey', pair.secretKey, c.secretKey);
		expectEqual('publicKey', pair.publicKey, c.publicKey);
		return 'key pair reproduced';
	},

	async messages(impl, c) {
		const context = {
			conversationId: c.conversationId,
			senderType: c.senderType,
			clientMessageId: c.clientMessageId,
			keyVersion: c.keyVersion
		};
		expectEqual('AD', await impl.messageAd(context), c.ad);
		const envelope = await impl.encryptMessage({ ...context, key: c.key, text: c.text, nonce: c.nonce });
		expectEqual('envelope', envelope, c.envelope);
		expectEqual('ciphertext length', b64uDecode(envelope.ciphertext).length, c.paddedLength + 16);
		const text = await impl.decryptMessage({
			envelope: c.envelope,
			key: c.key,
			conversationId: c.conversationId,
			senderType: c.senderType
		});
		expectEqual('decrypted text', text, c.text);
		return `AD, ciphertext (${c.paddedLength + 16} bytes) and text reproduced`;
	},

	async negativeMessages(impl, c) {
		return expectError(c.error, () =>
			impl.decryptMessage({ envelope: c.envelope, key: c.key, conversationId: c.conversationId, senderType: c.senderType })
		);
	},

	wraps: openWrap,
	agentWraps: openWrap,

	async companyKeySignatures(impl, c) {
		const input = { companyId: c.companyId, keyVersion: c.keyVersion, publicKey: c.publicKey };
		if (c.statement !== undefined) expectEqual('statement', await impl.companyKeyStatement(input), c.statement);
		const verify = () => impl.verifyCompanyKeySignature({ ...input, signature: c.signature, platformPublicKey: c.platformPublicKey });
		if (c.error) return expectError(c.error, verify);
		await verify();
		return 'statement rebuilt, signature verifies';
	},

	async companyRotations(impl, c) {
		const input = {
			companyId: c.companyId,
			fromKeyVersion: c.fromKeyVersion,
			fromPublicKey: c.fromPublicKey,
			toKeyVersion: c.toKeyVersion,
			toPublicKey: c.toPublicKey
		};
		if (c.error === 'INVALID_INPUT') return expectError(c.error, () => impl.rotationStatement(input));
		if (c.statement !== undefined) expectEqual('statement', await impl.rotationStatement(input), c.statement);
		if (c.signingSecretKey !== undefined) {
			expectEqual('signature', await impl.signRotation({ ...input, signingSecretKey: c.signingSecretKey }), c.signature);
		}
		const verify = () => impl.verifyRotation({ ...input, signature: c.signature, signingPublicKey: c.signingPublicKey });
		if (c.error) return expectError(c.error, verify);
		await verify();
		return 'statement rebuilt, signature reproduced and verified';
	},

	async rosterValid(impl, c) {
		const agents = parseAgents(c.agents) as RosterInput['agents'];
		const orders = [agents, [...agents].reverse(), [...agents.slice(1), ...agents.slice(0, 1)]];
		for (const order of orders) expectEqual('statement', await impl.rosterStatement(rosterOf(c, order)), c.statement);
		expectEqual('signature', await impl.signRoster({ ...rosterOf(c), signingSecretKey: c.signingSecretKey }), c.signature);
		for (const order of orders) {
			await impl.verifyRoster({ ...rosterOf(c, order), signature: c.signature, signingPublicKey: c.signingPublicKey });
		}
		return 'statement and signature reproduced; verifies in any agent order';
	},

	async rosterNegative(impl, c) {
		return expectError(c.error, () => impl.verifyRoster({ ...rosterOf(c), signature: c.signature, signingPublicKey: c.signingPublicKey }));
	},

	async attachments(impl, c) {
		const { plaintext, ciphertext, digest } = await encryptBase(impl, c);
		expectEqual('ciphertext length', ciphertext.length, c.ciphertextLength);
		expectEqual('ciphertext hash', await impl.blake2b256(ciphertext), c.ciphertextHash);
		if (c.ciphertext !== undefined) expectEqual('ciphertext', b64uEncode(ciphertext), c.ciphertext);
		expectEqual('digest', digest, c.digest);
		const meta = await impl.validateAttachmentMeta(c.meta);
		expectEqual(
			'meta key',
			[meta.key, meta.nonce, meta.digest, meta.size, meta.attachmentId],
			[c.fileKey, c.nonceBase, c.digest, c.size, c.attachmentId]
		);
		const decrypted = await impl.decryptAttachment({ pieces: splitIntoPieces(ciphertext), meta: c.meta });
		if (!equalBytes(decrypted, plaintext)) throw new Mismatch('decrypted plaintext differs from the pattern');
		return `${c.size} bytes encrypt to the given hash and decrypt back`;
	},

	async derivedAttachments(impl, c, file) {
		const base = (file.groups.attachments ?? []).find((candidate) => candidate.name === c.base);
		if (!base) throw new VectorFileError(`derived case ${c.name} names an unknown base ${c.base}`);
		const encrypted = await encryptBase(impl, base);
		expectEqual('base ciphertext hash', await impl.blake2b256(encrypted.ciphertext), base.ciphertextHash);
		const mutated = applyMutation(c.mutation, encrypted.ciphertext, base.meta);
		return expectError(c.error, () => impl.decryptAttachment({ pieces: splitIntoPieces(mutated.ciphertext), meta: mutated.meta }));
	},

	async fingerprints(impl, c) {
		const result = await impl.fingerprint(c.publicKey);
		expectEqual('fingerprint', result.fingerprint, c.fingerprint);
		expectEqual('display', result.display, c.display);
		return 'fingerprint and display reproduced';
	},

	async inviteBindings(impl, c) {
		const input = {
			inviteSecret: c.inviteSecret,
			conversationId: c.conversationId,
			userPublicKey: c.userPublicKey,
			wrapForCompany: c.wrapForCompany
		};
		const verify = () => impl.verifyInviteBinding({ ...input, binding: c.binding });
		if (c.error) return expectError(c.error, verify);
		expectEqual('binding', await impl.computeInviteBinding(input), c.binding);
		await verify();
		return 'tag reproduced and verified';
	}
};

const HMAC_GROUPS: Record<'webhooks' | 'requests', GroupCheck> = {
	async webhooks(impl, c) {
		const verify = () => impl.verifyWebhook({ secret: c.secret, header: c.header, body: c.body, now: c.now });
		if (c.error) return expectError(c.error, verify);
		await verify();
		return 'verifies';
	},
	async requests(impl, c) {
		const signed = await impl.signRequest({ secret: c.secret, t: c.t, method: c.method, pathAndQuery: c.pathAndQuery, body: c.body });
		expectEqual('canonical', signed.canonical, c.canonical);
		expectEqual('header', signed.header, c.header);
		return 'canonical string and header reproduced';
	}
};

/** Checks the file's format and lists its cases; throws VectorFileError when it cannot be used. */
export function conformanceCases(content: unknown): ConformanceCase[] {
	const file = content as VectorFileContent & { format?: string };
	if (typeof file !== 'object' || file === null || file.format !== 'service-v1-conformance') {
		throw new VectorFileError('not a service-v1-conformance file');
	}
	if (typeof file.groups !== 'object' || file.groups === null) throw new VectorFileError('the file has no groups');
	const cases: ConformanceCase[] = [];
	for (const [group, list] of Object.entries(file.groups)) {
		const check = GROUPS[group];
		if (!check) throw new VectorFileError(`unknown group ${JSON.stringify(group)}`);
		if (!Array.isArray(list)) throw new VectorFileError(`group ${group} is not a list`);
		for (const c of list) {
			if (group === 'derivedAttachments' && !KNOWN_MUTATIONS.has(c?.mutation?.op)) {
				throw new VectorFileError(`unknown mutation op ${JSON.stringify(c?.mutation?.op)} in ${c?.name}`);
			}
			cases.push({ group, name: String(c?.name), run: (implementation) => check(implementation, c, file) });
		}
	}
	for (const [list, entries] of Object.entries(file.hmac ?? {})) {
		const check = HMAC_GROUPS[list as keyof typeof HMAC_GROUPS];
		if (!check) throw new VectorFileError(`unknown HMAC list ${JSON.stringify(list)}`);
		if (!Array.isArray(entries)) throw new VectorFileError(`hmac.${list} is not a list`);
		for (const c of entries)
			cases.push({ group: `hmac.${list}`, name: String(c?.name), run: (implementation) => check(implementation, c, file) });
	}
	return cases;
}

/** Runs one case; an unexpected exception is a failure with its message, never a pass. */
export async function runCase(testCase: ConformanceCase, implementation: ConformanceImplementation): Promise<CaseResult> {
	try {
		const detail = await testCase.run(implementation);
		return { group: testCase.group, name: testCase.name, ok: true, detail };
	} catch (error) {
		if (error instanceof VectorFileError) throw error;
		const detail =
			error instanceof Mismatch
				? error.message
				: `unexpected error ${codeOf(error) ?? ''} ${(error as Error)?.message ?? String(error)}`.trim();
		return { group: testCase.group, name: testCase.name, ok: false, detail };
	}
}

export async function runConformance(
	fileName: string,
	content: unknown,
	implementation: ConformanceImplementation
): Promise<ConformanceReport> {
	const cases = conformanceCases(content);
	const results: CaseResult[] = [];
	for (const testCase of cases) results.push(await runCase(testCase, implementation));
	const passed = results.filter((result) => result.ok).length;
	return { file: fileName, total: results.length, passed, failed: results.length - passed, results };
}

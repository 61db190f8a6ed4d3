/**
 * What the conformance runner needs from an implementation of the contract (contract 9.1), as
 * plain serializable calls, and the implementation backed directly by the crypto core. The worker
 * exposes the same interface, so one runner checks Node, the worker in Chromium and the server's
 * HMAC code alike.
 */
import { AttachmentDecryptor, encryptAttachment } from '../crypto/attachment';
import { validateAttachmentMeta, type AttachmentMeta } from '../crypto/attachment-meta';
import { b64uDecode, b64uEncode } from '../crypto/encoding';
import { type HmacSha256, signRequest, sodiumHmacSha256, verifyWebhookSignature } from '../crypto/hmac';
import { computeInviteBinding, verifyInviteBinding } from '../crypto/invite';
import { fingerprintB64u, fingerprintDisplay, x25519KeyPairFromSeed } from '../crypto/keys';
import { decryptMessage, encryptMessage, messageAd, type Envelope, type SenderType } from '../crypto/message';
import { rosterStatement, signRoster, verifyRoster, type RosterInput } from '../crypto/roster';
import {
	companyKeyStatement,
	rotationStatement,
	signRotation,
	verifyCompanyKeySignature,
	verifyRotation,
	type RotationText
} from '../crypto/signatures';
import { initCrypto, sodium } from '../crypto/sodium';
import { openConversationKey, type Wrap } from '../crypto/wrap';
import { ParallelAttachmentDecryptor, ParallelAttachmentEncryptor } from '../crypto-worker/pipeline/parallel-attachment';
import type { ChunkWorkerPool } from '../crypto-worker/pipeline/pool';

/** Every byte string is b64u, as in the vector file, except file contents. */
export interface KeyPairText {
	secretKey: string;
	publicKey: string;
}

export interface MessageInput {
	key: string;
	conversationId: string;
	senderType: SenderType;
	clientMessageId: string;
	keyVersion: number;
}

export interface CompanyKeyInput {
	companyId: string;
	keyVersion: number;
	publicKey: string;
}

export interface BindingText {
	inviteSecret: string;
	conversationId: string;
	userPublicKey: string;
	wrapForCompany: Wrap;
}

export interface ConformanceImplementation {
	keyPairFromSeed(seed: string): Promise<KeyPairText>;
	messageAd(input: Omit<MessageInput, 'key'>): Promise<string>;
	encryptMessage(input: MessageInput & { text: string; nonce: string }): Promise<Envelope>;
	decryptMessage(input: { envelope: unknown; key: string; conversationId: string; senderType: SenderType }): Promise<string>;
	openConversationKey(input: { wrap: unknown; conversationId: string; recipientKeys: KeyPairText[] }): Promise<string>;
	companyKeyStatement(input: CompanyKeyInput): Promise<string>;
	verifyCompanyKeySignature(input: CompanyKeyInput & { signature: string; platformPublicKey: string }): Promise<void>;
	rotationStatement(input: RotationText): Promise<string>;
	signRotation(input: RotationText & { signingSecretKey: string }): Promise<string>;
	verifyRotation(input: RotationText & { signature: string; signingPublicKey: string }): Promise<void>;
	rosterStatement(input: RosterInput): Promise<string>;
	signRoster(input: RosterInput & { signingSecretKey: string }): Promise<string>;
	verifyRoster(input: RosterInput & { signature: string; signingPublicKey: string }): Promise<void>;
	blake2b256(bytes: Uint8Array): Promise<string>;
	encryptAttachment(input: {
		plaintext: Uint8Array;
		attachmentId: string;
		fileKey: string;
		nonceBase: string;
	}): Promise<{ ciphertext: Uint8Array; digest: string }>;
	validateAttachmentMeta(meta: unknown): Promise<AttachmentMeta>;
	/** Streaming decryption fed with `pieces` in order. */
	decryptAttachment(input: { pieces: Uint8Array[]; meta: unknown }): Promise<Uint8Array>;
	fingerprint(publicKey: string): Promise<{ fingerprint: string; display: string }>;
	computeInviteBinding(input: BindingText): Promise<string>;
	verifyInviteBinding(input: BindingText & { binding: string }): Promise<void>;
	signRequest(input: {
		secret: string;
		t: number;
		method: string;
		pathAndQuery: string;
		body: string;
	}): Promise<{ canonical: string; header: string }>;
	verifyWebhook(input: { secret: string; header: string | null; body: string; now: number }): Promise<void>;
}

const bytes = (text: string, what: string) => b64uDecode(text, what);

const rotation = (input: RotationText) => ({
	companyId: input.companyId,
	fromKeyVersion: input.fromKeyVersion,
	fromPublicKey: bytes(input.fromPublicKey, 'fromPublicKey'),
	toKeyVersion: input.toKeyVersion,
	toPublicKey: bytes(input.toPublicKey, 'toPublicKey')
});

const binding = (input: BindingText) => ({
	inviteSecret: bytes(input.inviteSecret, 'inviteSecret'),
	conversationId: input.conversationId,
	userPublicKey: bytes(input.userPublicKey, 'userPublicKey'),
	wrapForCompany: input.wrapForCompany
});

/**
 * The core as a ConformanceImplementation. `hmac` selects the HMAC-SHA256 used for the HMAC cases
 * (libsodium by default; the server passes `node:crypto`).
 */
export function coreImplementation(hmac: HmacSha256 = sodiumHmacSha256): ConformanceImplementation {
	const ready = initCrypto();
	const run = async <T>(operation: () => T): Promise<T> => {
		await ready;
		return operation();
	};
	return {
		keyPairFromSeed: (seed) =>
			run(() => {
				const pair = x25519KeyPairFromSeed(bytes(seed, 'seed'));
				return { secretKey: b64uEncode(pair.secretKey), publicKey: b64uEncode(pair.publicKey) };
			}),
		messageAd: (input) => run(() => messageAd(input)),
		encryptMessage: (input) =>
			run(() => encryptMessage({ ...input, conversationKey: bytes(input.key, 'key'), nonce: bytes(input.nonce, 'nonce') })),
		decryptMessage: (input) =>
			run(() =>
				decryptMessage(input.envelope, {
					conversationKey: bytes(input.key, 'key'),
					conversationId: input.conversationId,
					senderType: input.senderType
				})
			),
		openConversationKey: (input) =>
			run(() => {
				const keyPairs = input.recipientKeys.map((pair) => ({
					secretKey: bytes(pair.secretKey, 'secretKey'),
					publicKey: bytes(pair.publicKey, 'publicKey')
				}));
				return b64uEncode(openConversationKey(input.wrap, input.conversationId, keyPairs));
			}),
		companyKeyStatement: (input) => run(() => companyKeyStatement({ ...input, publicKey: bytes(input.publicKey, 'publicKey') })),
		verifyCompanyKeySignature: (input) =>
			run(() =>
				verifyCompanyKeySignature(
					{ ...input, publicKey: bytes(input.publicKey, 'publicKey') },
					input.signature,
					bytes(input.platformPublicKey, 'platformPublicKey')
				)
			),
		rotationStatement: (input) => run(() => rotationStatement(rotation(input))),
		signRotation: (input) => run(() => signRotation(rotation(input), bytes(input.signingSecretKey, 'signingSecretKey'))),
		verifyRotation: (input) =>
			run(() => verifyRotation(rotation(input), input.signature, bytes(input.signingPublicKey, 'signingPublicKey'))),
		rosterStatement: (input) => run(() => rosterStatement(input)),
		signRoster: (input) => run(() => signRoster(input, bytes(input.signingSecretKey, 'signingSecretKey'))),
		verifyRoster: (input) => run(() => verifyRoster(input, bytes(input.signingPublicKey, 'signingPublicKey'))),
		blake2b256: (data) => run(() => b64uEncode(sodium().crypto_generichash(32, data, null))),
		encryptAttachment: (input) =>
			run(() => {
				const result = encryptAttachment(input.plaintext, {
					attachmentId: input.attachmentId,
					fileKey: bytes(input.fileKey, 'fileKey'),
					nonceBase: bytes(input.nonceBase, 'nonceBase')
				});
				return { ciphertext: result.ciphertext, digest: result.digest };
			}),
		validateAttachmentMeta: (meta) => run(() => validateAttachmentMeta(meta)),
		decryptAttachment: (input) =>
			run(() => {
				const decryptor = new AttachmentDecryptor(input.meta);
				for (const piece of input.pieces) decryptor.push(piece);
				return decryptor.finish();
			}),
		fingerprint: (publicKey) =>
			run(() => ({
				fingerprint: fingerprintB64u(bytes(publicKey, 'publicKey')),
				display: fingerprintDisplay(bytes(publicKey, 'publicKey'))
			})),
		computeInviteBinding: (input) => run(() => b64uEncode(computeInviteBinding(binding(input)))),
		verifyInviteBinding: (input) => run(() => verifyInviteBinding(input.binding, binding(input))),
		signRequest: (input) => run(() => signRequest(input, hmac)),
		verifyWebhook: (input) =>
			run(() => {
				verifyWebhookSignature({ secrets: [input.secret], header: input.header, body: input.body, now: input.now }, hmac);
			})
	};
}

/**
 * The same implementation with attachments going through the parallel chunk pipeline (docs/crypto-worker.md,
 * "Parallel chunks"), so the attachment vector groups check the path the inbox's worker uses.
 */
export function withAttachmentPipeline(implementation: ConformanceImplementation, pool: ChunkWorkerPool): ConformanceImplementation {
	return {
		...implementation,
		async encryptAttachment(input) {
			await initCrypto();
			const encryptor = new ParallelAttachmentEncryptor(pool, {
				attachmentId: input.attachmentId,
				size: input.plaintext.length,
				fileKey: bytes(input.fileKey, 'fileKey'),
				nonceBase: bytes(input.nonceBase, 'nonceBase')
			});
			await encryptor.push(input.plaintext);
			const result = await encryptor.finish();
			return { ciphertext: result.ciphertext, digest: result.digest };
		},
		async decryptAttachment(input) {
			await initCrypto();
			const decryptor = new ParallelAttachmentDecryptor(pool, input.meta);
			for (const piece of input.pieces) await decryptor.push(piece);
			return decryptor.finish();
		}
	};
}

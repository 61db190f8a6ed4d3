/**
 * Identifiers and credentials the simulated service hands out (docs/contract-gaps.md §1, contract
 * 2.3): prefixed base64url ids that match the id rule of contract 1.1, API keys and webhook secrets,
 * and the short codes customers type.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { b64uEncode } from '../lib/crypto/index';

/** `prefix` + base64url of `bytes` random bytes (3 bytes give 4 characters). */
function randomId(prefix: string, bytes: number): string {
	return prefix + b64uEncode(randomBytes(bytes));
}

export const newCompanyId = () => randomId('cmp_', 9);
export const newConversationId = () => randomId('conv_', 12);
export const newMessageId = () => randomId('msg_', 12);
export const newAttachmentId = () => randomId('att_', 15);
export const newEventId = () => randomId('evt_', 12);
export const newDeliveryId = () => randomId('dlv_', 12);
export const newInviteId = () => randomId('inv_', 12);
export const newCustomerId = () => randomId('cus_', 12);

export const newApiKey = () => randomId('sk_live_', 32);
export const newWebhookSecret = () => randomId('whsec_', 32);

export const API_KEY_RULE = /^sk_live_[A-Za-z0-9_-]{43}$/;
export const WEBHOOK_SECRET_RULE = /^whsec_[A-Za-z0-9_-]{43}$/;

/** The service keeps only a hash of each API key: it is shown once. */
export function apiKeyHash(apiKey: string): string {
	return createHash('sha256').update(apiKey).digest('hex');
}

const SHORT_CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ23456789';

/** 8 characters of `[A-Z2-9]`, shown as `XXXX-XXXX`. */
export function newShortCode(): string {
	let code = '';
	for (let i = 0; i < 8; i++) code += SHORT_CODE_ALPHABET[randomInt(SHORT_CODE_ALPHABET.length)];
	return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, in the stored form: upper case, the dash where it belongs, no spaces. */
export function normalizeShortCode(typed: string): string {
	const compact = typed.toUpperCase().replace(/[\s-]/g, '');
	return compact.length === 8 ? `${compact.slice(0, 4)}-${compact.slice(4)}` : compact;
}

/**
 * HMAC-SHA256 for the server with `node:crypto` (contract 5.1, 5.2), plugged into the crypto core's
 * request signing and webhook verification.
 */
import { createHmac } from 'node:crypto';
import type { HmacSha256 } from '../crypto/hmac';

export const nodeHmacSha256: HmacSha256 = (key, message) => new Uint8Array(createHmac('sha256', key).update(message).digest());

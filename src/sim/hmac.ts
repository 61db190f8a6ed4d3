/**
 * HMAC-SHA256 with `node:crypto`, plugged into the crypto core's canonical signing of contract 5.1
 * (requests) and used for webhook signatures (5.2); the simulator runs only in Node.
 */
import { createHmac } from 'node:crypto';
import type { HmacSha256 } from '../lib/crypto/index';

export const nodeHmacSha256: HmacSha256 = (key, message) => new Uint8Array(createHmac('sha256', key).update(message).digest());

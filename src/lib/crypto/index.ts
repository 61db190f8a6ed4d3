/**
 * The crypto core: every construction of the wire contract over libsodium-wrappers-sumo, in plain
 * TypeScript that runs unchanged in Node and in a Web Worker. `await initCrypto()` once, then call
 * the functions synchronously.
 */
export * from '../errors';
export * from './sodium';
export * from './encoding';
export * from './rules';
export * from './keys';
export * from './wrap';
export * from './message';
export * from './attachment-meta';
export * from './attachment';
export * from './invite';
export * from './signatures';
export * from './roster';
export * from './hmac';
export * from './private-record';
export * from './pending-profile';

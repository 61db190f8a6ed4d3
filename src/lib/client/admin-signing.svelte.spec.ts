/**
 * The admin's signing key in this browser (contract 2.1, 5.3; docs/crypto-worker.md) against the running
 * inbox, with the page's crypto worker client and the worker's code run in this process: the key file is
 * imported in the worker only when its public half is the server's `signing.pub`, a file that is not a
 * key or a key of another company is refused and nothing is stored, a lock forgets the handle, and a key
 * stored here that is not the company's current `signing.pub` asks for the right file.
 */
import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { signingKeyOf } from '$test-support/admin-api';
import { InProcessWorker } from '$test-support/in-process-crypto-worker';
import { ADMIN, useStack } from '$test-support/integration';
import { PageNetwork } from '$test-support/page-network';
import { b64uEncode, formatKeyFile, generateEd25519KeyPair, initCrypto, isoSeconds } from '../crypto/index';
import { login } from './api';
import { signingKey } from './admin-signing.svelte';
import { session } from './session.svelte';

// Real processes on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const PASSPHRASE = 'the signing passphrase';

const harness = useStack('PGlite');
let network: PageNetwork;
/** The stack's `signing.key` as the key tool wrote it, and the file of another company's key. */
let companyFile: File;
let companyPublicKey: string;
let foreign: { file: File; publicKey: string };
const stored = async () => (await session.crypto.status()).signing;

beforeAll(async () => {
	network = new PageNetwork(harness.stack().inbox.url);
	vi.stubGlobal('fetch', network.fetch);
	vi.stubGlobal('Worker', InProcessWorker);
	await initCrypto();
	const secret = await signingKeyOf(harness.stack());
	companyFile = new File([formatKeyFile(secret)], 'signing.key');
	companyPublicKey = b64uEncode(secret.subarray(32));
	const other = generateEd25519KeyPair();
	foreign = { file: new File([formatKeyFile(other.secretKey)], 'signing.key'), publicKey: b64uEncode(other.publicKey) };
	await login(ADMIN.username, ADMIN.password);
	await session.start();
	return () => {
		InProcessWorker.terminateAll();
		vi.unstubAllGlobals();
	};
});

describe("the signing key: importing the company's signing.key", () => {
	it("asks for the key file when this browser has none, and imports nothing before it knows the server's signing.pub", async () => {
		await expect(signingKey.import(companyFile, PASSPHRASE)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
		expect(signingKey.phase).toBe('loading');
		await signingKey.load();
		expect([signingKey.phase, signingKey.expected?.publicKey, signingKey.stored, signingKey.failure]).toEqual([
			'import',
			companyPublicKey,
			null,
			null
		]);
		expect(() => signingKey.handle).toThrow(expect.objectContaining({ code: 'LOCKED' }));
	});

	it('refuses a file that is not a signing key, and the key of another company, saying why; nothing is stored', async () => {
		await expect(signingKey.import(new File(['not a key'], 'signing.key'), PASSPHRASE)).rejects.toMatchObject({
			code: 'INVALID_INPUT',
			message: expect.stringMatching(/^This file is not a signing\.key \(.+\)\. Nothing was stored\.$/)
		});
		await expect(signingKey.import(foreign.file, PASSPHRASE)).rejects.toMatchObject({
			code: 'INVALID_INPUT',
			message: "This is not the company's signing key: its public half differs from the server's signing.pub. Nothing was stored."
		});
		expect([signingKey.phase, await stored()]).toEqual(['import', null]);
	});

	it("imports the company's signing.key under the passphrase: its handle signs, and a lock forgets it until unlocked", async () => {
		const key = await signingKey.import(companyFile, PASSPHRASE);
		expect([signingKey.phase, signingKey.handle, key.publicKey, (await stored())?.unlocked]).toEqual([
			'ready',
			key.handle,
			companyPublicKey,
			true
		]);
		const roster = { companyId: harness.stack().company.companyId, rosterVersion: 9, issuedAt: isoSeconds(new Date()), agents: [] };
		const signed = await session.crypto.signRoster(signingKey.handle, roster);
		await expect(
			session.crypto.verifyRoster({ ...roster, signature: signed.signature, signingPublicKey: companyPublicKey })
		).resolves.toBeUndefined();

		await session.crypto.lock();
		await signingKey.load();
		expect([signingKey.phase, signingKey.key]).toEqual(['unlock', null]);
		expect(() => signingKey.handle).toThrow(expect.objectContaining({ code: 'LOCKED' }));
		await expect(signingKey.unlock('not the passphrase')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
		expect(signingKey.phase).toBe('unlock');
		await signingKey.unlock(PASSPHRASE);
		expect(signingKey.phase).toBe('ready');
	});
});

describe("the signing key: a stored key that is not the server's, and a server that cannot be asked", () => {
	it('asks for the right file when the key stored here is not the server’s signing.pub, and takes it in its place', async () => {
		// a key of an earlier signing.pub, stored by an earlier import
		await session.crypto.importSigningKey({
			signingKey: foreign.file,
			expectedPublicKey: foreign.publicKey,
			passphrase: PASSPHRASE,
			replace: true
		});
		await signingKey.load();
		expect([signingKey.phase, signingKey.stored?.publicKey]).toEqual(['mismatch', foreign.publicKey]);
		await expect(signingKey.unlock(PASSPHRASE)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		expect(signingKey.phase).toBe('mismatch');
		await signingKey.import(companyFile, PASSPHRASE);
		expect([signingKey.phase, (await stored())?.publicKey]).toEqual(['ready', companyPublicKey]);
	});

	it('says why when the server could not be asked', async () => {
		network.cutNextRequest('GET', /^\/api\/admin\/signing-key$/);
		await signingKey.load();
		expect([signingKey.phase, signingKey.failure]).toEqual(['failed', expect.any(TypeError)]);
		await signingKey.load();
		expect([signingKey.phase, signingKey.failure]).toEqual(['ready', null]);
	});
});

import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { b64uEncode, generateX25519KeyPair, openConversationKey, sealConversationKey } from '../../crypto/index';
import { initCompanyKeys, KeyFileError, loadCompanyKeys, pendingRotation, promotePendingRotation, rotateCompanyKeys } from './files';

let dir: string;
beforeEach(async () => {
	dir = join(await mkdtemp(join(tmpdir(), 'keys-')), 'keys');
});

const mode = async (name: string) => (await stat(join(dir, name))).mode & 0o777;

describe('company key files (contract 2.1)', () => {
	it('init writes four one-line base64url files with their permissions', async () => {
		const created = await initCompanyKeys(dir);
		expect(await mode('private.key')).toBe(0o600);
		expect(await mode('signing.key')).toBe(0o600);
		expect(await mode('public.key')).toBe(0o644);
		expect(await mode('signing.pub')).toBe(0o644);
		expect(await readFile(join(dir, 'public.key'), 'utf8')).toBe(`${b64uEncode(created.publicKey)}\n`);
		expect((await readFile(join(dir, 'signing.key'), 'utf8')).trim()).toMatch(/^[A-Za-z0-9_-]{86}$/);
		const keys = await loadCompanyKeys(dir);
		expect(keys.current.keyVersion).toBe(1);
		expect(keys.current.publicKey).toEqual(created.publicKey);
		expect(keys.signingPublicKey).toEqual(created.signingPublicKey);
	});

	it('init refuses to overwrite existing files', async () => {
		await initCompanyKeys(dir);
		const before = await readFile(join(dir, 'private.key'), 'utf8');
		await expect(initCompanyKeys(dir)).rejects.toThrow(/already exists/);
		expect(await readFile(join(dir, 'private.key'), 'utf8')).toBe(before);
	});

	it('loading trims surrounding whitespace but decodes strictly', async () => {
		await initCompanyKeys(dir);
		const text = (await readFile(join(dir, 'public.key'), 'utf8')).trim();
		await writeFile(join(dir, 'public.key'), `  ${text}\r\n\n`);
		await expect(loadCompanyKeys(dir)).resolves.toBeDefined();
		await writeFile(join(dir, 'public.key'), `${text}=\n`);
		await expect(loadCompanyKeys(dir)).rejects.toThrow(/public\.key: not a single line of unpadded base64url/);
		await writeFile(join(dir, 'public.key'), `${text.slice(0, 40)}\n`);
		await expect(loadCompanyKeys(dir)).rejects.toThrow(/public\.key: must hold 32 bytes/);
	});

	it('loading refuses a public key that is not X25519(secret, 9)', async () => {
		await initCompanyKeys(dir);
		await writeFile(join(dir, 'public.key'), `${b64uEncode(generateX25519KeyPair().publicKey)}\n`);
		await expect(loadCompanyKeys(dir)).rejects.toThrow(
			`${join(dir, 'public.key')}: the public key is not X25519(secret key, 9) (private.key and public.key do not belong together)`
		);
	});

	it('two inits at once leave one pair that belongs together: the loser is refused, never overwrites', async () => {
		const results = await Promise.allSettled([initCompanyKeys(dir), initCompanyKeys(dir)]);
		expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
		const kept = results.find((result) => result.status === 'fulfilled')!.value;
		expect((await loadCompanyKeys(dir)).current.publicKey).toEqual(kept.publicKey);
	});

	it('loading refuses a secret file readable by group or others, naming it', async () => {
		await initCompanyKeys(dir);
		await chmod(join(dir, 'private.key'), 0o640);
		await expect(loadCompanyKeys(dir)).rejects.toThrow(KeyFileError);
		const path = join(dir, 'private.key');
		await expect(loadCompanyKeys(dir)).rejects.toMatchObject({
			message: `${path} is readable by group or others (mode 640); run: chmod 600 ${path}`
		});
	});

	it('a missing directory says how to create the keys', async () => {
		await expect(loadCompanyKeys(join(dir, 'nowhere'))).rejects.toThrow(/npm run keys -- init/);
	});

	it('rotation keeps the previous pair, and old wraps still open with [current, previous]', async () => {
		await initCompanyKeys(dir);
		const before = await loadCompanyKeys(dir);
		const conversationKey = new Uint8Array(32).fill(9);
		const oldWrap = sealConversationKey({
			conversationKey,
			conversationId: 'conv_1',
			keyVersion: 1,
			recipientPublicKey: before.current.publicKey
		});

		const rotation = await rotateCompanyKeys(dir);
		expect(rotation).toMatchObject({ fromKeyVersion: 1, toKeyVersion: 2 });
		expect(await mode('private.v1.key')).toBe(0o600);
		const after = await loadCompanyKeys(dir);
		expect(after.current.keyVersion).toBe(2);
		expect(after.current.publicKey).toEqual(rotation.toPublicKey);
		expect(after.previous.map((pair) => pair.keyVersion)).toEqual([1]);
		expect(after.previous[0].publicKey).toEqual(before.current.publicKey);
		expect(openConversationKey(oldWrap, 'conv_1', [after.current, ...after.previous])).toEqual(conversationKey);

		await rotateCompanyKeys(dir);
		expect((await loadCompanyKeys(dir)).previous.map((pair) => pair.keyVersion)).toEqual([2, 1]);
	});

	it('leftovers of an interrupted rotation stop loading with a clear message', async () => {
		await initCompanyKeys(dir);
		await writeFile(join(dir, 'private.key.new'), 'x');
		await expect(loadCompanyKeys(dir)).rejects.toThrow(`${dir} holds private.key.new from an interrupted rotation; finish or remove them`);
		await writeFile(join(dir, 'public.key.new'), 'x');
		await expect(loadCompanyKeys(dir)).rejects.toThrow(
			`${dir} holds private.key.new, public.key.new from an interrupted rotation; finish or remove them`
		);
	});

	it('init makes a directory only its owner may enter, and refuses when any one of the four files exists', async () => {
		await initCompanyKeys(dir);
		expect((await stat(dir)).mode & 0o777).toBe(0o700);
		for (const name of ['private.key', 'public.key', 'signing.key']) await rm(join(dir, name));
		await expect(initCompanyKeys(dir)).rejects.toThrow(`${join(dir, 'signing.pub')} already exists; refusing to overwrite key files`);
	});

	it('a missing or unreadable key file is a KeyFileError naming it', async () => {
		await initCompanyKeys(dir);
		await rm(join(dir, 'public.key'));
		const missing = await loadCompanyKeys(dir).catch((error: unknown) => error);
		expect(missing).toBeInstanceOf(KeyFileError);
		expect((missing as KeyFileError).name).toBe('KeyFileError');
		expect((missing as Error).message).toMatch(new RegExp(`^${join(dir, 'public.key')} cannot be read: ENOENT`));
	});

	it('a pending rotation is made once, asked again gives the same statement, and promoting it makes it current', async () => {
		const created = await initCompanyKeys(dir);
		expect(await pendingRotation(dir, { create: false })).toBeNull();
		await expect(promotePendingRotation(dir)).rejects.toThrow(`${dir} holds no pending rotation`);
		const pending = await pendingRotation(dir, { create: true });
		expect(pending).toMatchObject({ fromKeyVersion: 1, fromPublicKey: created.publicKey, toKeyVersion: 2 });
		expect(await pendingRotation(dir, { create: true })).toEqual(pending);
		expect(await pendingRotation(dir, { create: false })).toEqual(pending);
		expect(await mode('private.pending.key')).toBe(0o600);
		expect((await loadCompanyKeys(dir)).current.publicKey).toEqual(created.publicKey);
		expect(await promotePendingRotation(dir)).toEqual(pending);
		const keys = await loadCompanyKeys(dir);
		expect([keys.current.keyVersion, keys.current.publicKey, keys.previous.map((pair) => pair.keyVersion)]).toEqual([
			2,
			pending!.toPublicKey,
			[1]
		]);
		expect(await pendingRotation(dir, { create: false })).toBeNull();
	});
});

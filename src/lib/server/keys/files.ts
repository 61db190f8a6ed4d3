/**
 * Company key files (contract 2.1): one base64url line each, `private.key` (0600), `public.key`
 * (0644), `signing.key` (0600), `signing.pub` (0644); previous pairs kept as `private.v<N>.key` and
 * `public.v<N>.key` after a rotation. Loading trims, decodes strictly, checks every X25519 pair and
 * refuses secret files readable by group or others, each error naming the file.
 */
import { KEY_BYTES, PUBLIC_KEY_BYTES } from '../../crypto/rules';
import { chmod, link, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
	ContractError,
	checkX25519KeyPair,
	formatKeyFile,
	generateEd25519KeyPair,
	generateX25519KeyPair,
	initCrypto,
	parseKeyFile,
	type X25519KeyPair
} from '../../crypto/index';

export interface CompanyKeyPair extends X25519KeyPair {
	keyVersion: number;
}

export interface CompanyKeys {
	current: CompanyKeyPair;
	/** Newest first: the order in which wraps are tried after the current key (contract 6.1). */
	previous: CompanyKeyPair[];
	signingPublicKey: Uint8Array;
}

export const KEY_FILES = {
	privateKey: 'private.key',
	publicKey: 'public.key',
	signingKey: 'signing.key',
	signingPublicKey: 'signing.pub'
} as const;

const PREVIOUS_PRIVATE = /^private\.v([1-9][0-9]*)\.key$/;
const SECRET_MODE = 0o600;
const PUBLIC_MODE = 0o644;

/** A key file problem: the message names the file and what to do. */
export class KeyFileError extends Error {
	override readonly name = 'KeyFileError';
}

async function writeNewFile(path: string, content: string, mode: number): Promise<void> {
	await writeFile(path, content, { flag: 'wx', mode });
	await chmod(path, mode); // the umask may have narrowed the mode at creation
}

async function exists(path: string): Promise<boolean> {
	return stat(path).then(
		() => true,
		() => false
	);
}

/** Writes the four key files; refuses to overwrite any existing one. */
export async function initCompanyKeys(dir: string): Promise<{ publicKey: Uint8Array; signingPublicKey: Uint8Array }> {
	await initCrypto();
	await mkdir(dir, { recursive: true, mode: 0o700 });
	for (const name of Object.values(KEY_FILES)) {
		if (await exists(join(dir, name))) throw new KeyFileError(`${join(dir, name)} already exists; refusing to overwrite key files`);
	}
	const pair = generateX25519KeyPair();
	const signing = generateEd25519KeyPair();
	await writeNewFile(join(dir, KEY_FILES.privateKey), formatKeyFile(pair.secretKey), SECRET_MODE);
	await writeNewFile(join(dir, KEY_FILES.publicKey), formatKeyFile(pair.publicKey), PUBLIC_MODE);
	await writeNewFile(join(dir, KEY_FILES.signingKey), formatKeyFile(signing.secretKey), SECRET_MODE);
	await writeNewFile(join(dir, KEY_FILES.signingPublicKey), formatKeyFile(signing.publicKey), PUBLIC_MODE);
	return { publicKey: pair.publicKey, signingPublicKey: signing.publicKey };
}

async function readKeyFile(path: string, length: number, secret: boolean): Promise<Uint8Array> {
	let text: string;
	try {
		if (secret) {
			const { mode } = await stat(path);
			if (mode & 0o077) {
				throw new KeyFileError(`${path} is readable by group or others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
			}
		}
		text = await readFile(path, 'utf8');
	} catch (error) {
		if (error instanceof KeyFileError) throw error;
		throw new KeyFileError(`${path} cannot be read: ${(error as Error).message}`);
	}
	try {
		return parseKeyFile(text, length, path);
	} catch (error) {
		throw new KeyFileError((error as ContractError).message);
	}
}

async function readPair(dir: string, privateName: string, publicName: string, keyVersion: number): Promise<CompanyKeyPair> {
	const secretKey = await readKeyFile(join(dir, privateName), KEY_BYTES, true);
	const publicKey = await readKeyFile(join(dir, publicName), PUBLIC_KEY_BYTES, false);
	try {
		checkX25519KeyPair({ secretKey, publicKey }, `${join(dir, publicName)}`);
	} catch (error) {
		throw new KeyFileError(`${(error as Error).message} (${privateName} and ${publicName} do not belong together)`);
	}
	return { keyVersion, secretKey, publicKey };
}

/** Versions of the previous pairs present in `dir`, newest first. */
async function previousVersions(dir: string): Promise<number[]> {
	const names = await readdir(dir);
	return names
		.map((name) => PREVIOUS_PRIVATE.exec(name)?.[1])
		.filter((version): version is string => version !== undefined)
		.map(Number)
		.sort((a, b) => b - a);
}

/**
 * Loads the current pair (its version is one above the newest previous pair, or 1), the previous
 * pairs and `signing.pub`. The server never reads `signing.key`.
 */
export async function loadCompanyKeys(dir: string): Promise<CompanyKeys> {
	await initCrypto();
	const names = await readdir(dir).catch((error: Error) => {
		throw new KeyFileError(`key directory ${dir} cannot be read: ${error.message}; create the keys with: npm run keys -- init ${dir}`);
	});
	const leftovers = names.filter((name) => name.endsWith('.new'));
	if (leftovers.length) throw new KeyFileError(`${dir} holds ${leftovers.join(', ')} from an interrupted rotation; finish or remove them`);
	const versions = await previousVersions(dir);
	const previous: CompanyKeyPair[] = [];
	for (const version of versions) previous.push(await readPair(dir, `private.v${version}.key`, `public.v${version}.key`, version));
	const current = await readPair(dir, KEY_FILES.privateKey, KEY_FILES.publicKey, (versions[0] ?? 0) + 1);
	const signingPublicKey = await readKeyFile(join(dir, KEY_FILES.signingPublicKey), PUBLIC_KEY_BYTES, false);
	return { current, previous, signingPublicKey };
}

export interface Rotation {
	fromKeyVersion: number;
	fromPublicKey: Uint8Array;
	toKeyVersion: number;
	toPublicKey: Uint8Array;
}

/** The new pair of a rotation that waits for the admin's signature (docs/inbox-api.md "Administration"). */
export const PENDING_FILES = { privateKey: 'private.pending.key', publicKey: 'public.pending.key' } as const;

/**
 * The pending rotation: the new pair written next to the current one (which stays current), made now
 * unless one is already waiting, so that asking twice gives the same statement to sign.
 */
export async function pendingRotation(dir: string, options: { create: boolean }): Promise<Rotation | null> {
	const keys = await loadCompanyKeys(dir);
	const from = keys.current;
	const privatePath = join(dir, PENDING_FILES.privateKey);
	if (!(await exists(privatePath))) {
		if (!options.create) return null;
		const next = generateX25519KeyPair();
		await writeNewFile(join(dir, PENDING_FILES.publicKey), formatKeyFile(next.publicKey), PUBLIC_MODE);
		await writeNewFile(privatePath, formatKeyFile(next.secretKey), SECRET_MODE);
	}
	const pending = await readPair(dir, PENDING_FILES.privateKey, PENDING_FILES.publicKey, from.keyVersion + 1);
	return {
		fromKeyVersion: from.keyVersion,
		fromPublicKey: from.publicKey,
		toKeyVersion: pending.keyVersion,
		toPublicKey: pending.publicKey
	};
}

/**
 * Makes the pending pair current and keeps the old one as `private.v<N>.key`/`public.v<N>.key`. Hard
 * links keep the old pair under its versioned name before the current names move on, so an
 * interruption never leaves no valid pair.
 */
export async function promotePendingRotation(dir: string): Promise<Rotation> {
	const rotation = await pendingRotation(dir, { create: false });
	if (!rotation) throw new KeyFileError(`${dir} holds no pending rotation`);
	await link(join(dir, KEY_FILES.privateKey), join(dir, `private.v${rotation.fromKeyVersion}.key`));
	await link(join(dir, KEY_FILES.publicKey), join(dir, `public.v${rotation.fromKeyVersion}.key`));
	await rename(join(dir, PENDING_FILES.privateKey), join(dir, KEY_FILES.privateKey));
	await rename(join(dir, PENDING_FILES.publicKey), join(dir, KEY_FILES.publicKey));
	return rotation;
}

/** Makes a new current pair at once (the command line's rotation) and keeps the old one as `private.v<N>.key`. */
export async function rotateCompanyKeys(dir: string): Promise<Rotation> {
	await pendingRotation(dir, { create: true });
	return promotePendingRotation(dir);
}

/**
 * `npm run keys -- init|rotate|fingerprint [DIR] [--company-id ID]`: the company key files of
 * contract 2.1 (default DIR: `$DATA_DIR/keys`, `./data/keys`). `rotate` keeps the previous pair as
 * `private.v<N>.key`/`public.v<N>.key` and prints the rotation statement (contract 6.6) to sign.
 */
import { join } from 'node:path';
import { b64uEncode, fingerprintB64u, fingerprintDisplay, rotationStatement } from '../lib/crypto/index';
import { initCompanyKeys, KeyFileError, loadCompanyKeys, rotateCompanyKeys } from '../lib/server/keys/files';

const USAGE = `usage: npm run keys -- <init|rotate|fingerprint> [DIR] [--company-id ID]
  init         write private.key, public.key, signing.key, signing.pub (refuses to overwrite)
  rotate       new X25519 pair; the previous one is kept as private.v<N>.key / public.v<N>.key
  fingerprint  the fingerprint of the current public key and of the previous ones`;

function parse(argv: string[]): { command: string; dir: string; companyId?: string } {
	const positional: string[] = [];
	let companyId: string | undefined;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--company-id') companyId = argv[++i];
		else if (argv[i].startsWith('--company-id=')) companyId = argv[i].slice('--company-id='.length);
		else if (argv[i].startsWith('-')) throw new KeyFileError(`unknown option ${argv[i]}\n${USAGE}`);
		else positional.push(argv[i]);
	}
	const [command, dir] = positional;
	if (!command || positional.length > 2) throw new KeyFileError(USAGE);
	return { command, dir: dir ?? join(process.env.DATA_DIR ?? './data', 'keys'), companyId };
}

function describeKey(label: string, publicKey: Uint8Array): string {
	return `${label}\n  public key   ${b64uEncode(publicKey)}\n  fingerprint  ${fingerprintDisplay(publicKey)}\n  (in links)   ${fingerprintB64u(publicKey)}`;
}

async function main(): Promise<void> {
	const { command, dir, companyId } = parse(process.argv.slice(2));
	if (command === 'init') {
		const created = await initCompanyKeys(dir);
		console.log(`Wrote private.key (0600), public.key, signing.key (0600), signing.pub to ${dir}`);
		console.log(describeKey('Company X25519 key (keyVersion 1)', created.publicKey));
		console.log(`Signing public key (signing.pub): ${b64uEncode(created.signingPublicKey)}`);
		console.log('Upload public.key and signing.pub to the portal. Move signing.key to the admin device: the inbox server never needs it.');
	} else if (command === 'rotate') {
		const rotation = await rotateCompanyKeys(dir);
		console.log(
			`Kept keyVersion ${rotation.fromKeyVersion} as private.v${rotation.fromKeyVersion}.key / public.v${rotation.fromKeyVersion}.key`
		);
		console.log(describeKey(`New company key (keyVersion ${rotation.toKeyVersion})`, rotation.toPublicKey));
		if (companyId) {
			console.log(`Rotation statement to sign with signing.key (contract 6.6):\n${rotationStatement({ companyId, ...rotation })}`);
		} else {
			console.log('Pass --company-id cmp_… to print the rotation statement to sign.');
		}
	} else if (command === 'fingerprint') {
		const keys = await loadCompanyKeys(dir);
		console.log(describeKey(`Current company key (keyVersion ${keys.current.keyVersion})`, keys.current.publicKey));
		for (const pair of keys.previous) console.log(describeKey(`Previous key (keyVersion ${pair.keyVersion})`, pair.publicKey));
	} else {
		throw new KeyFileError(`unknown command ${command}\n${USAGE}`);
	}
}

main().catch((error) => {
	console.error(error instanceof KeyFileError ? error.message : error);
	process.exitCode = 1;
});

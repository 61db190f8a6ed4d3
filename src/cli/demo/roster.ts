/**
 * Publishing a signed agent roster (contract 2.9, 6.7; docs/contract-gaps.md §7) from Node: the next
 * version after the service's latest, signed with the company's `signing.key`. In production the admin
 * signs in the page with the key held in their browser; the demo launcher and the tests are dev tools
 * that read `DATA_DIR/keys/signing.key` instead.
 */
import { readFile } from 'node:fs/promises';
import { ContractError, isoSeconds, parseKeyFile, signRoster, type RosterAgent, ED25519_SECRET_KEY_BYTES } from '../../lib/crypto/index';
import { v1, type RosterRecord } from '../../lib/wire/v1';
import { callService, type ServiceCredentials } from './service';

/** The latest roster the service accepted, or null before the first. */
export async function latestRoster(company: ServiceCredentials): Promise<RosterRecord | null> {
	try {
		return await callService(company, v1.getRoster());
	} catch (error) {
		if (error instanceof ContractError && error.code === 'NOT_FOUND') return null;
		throw error;
	}
}

/** Signs and uploads roster version n + 1 holding exactly `agents`. */
export async function publishRoster(
	company: ServiceCredentials,
	signingKeyFile: string,
	agents: readonly RosterAgent[]
): Promise<RosterRecord> {
	const signingKey = parseKeyFile(await readFile(signingKeyFile, 'utf8'), ED25519_SECRET_KEY_BYTES, 'signing.key');
	try {
		const previous = await latestRoster(company);
		const roster = {
			companyId: company.companyId,
			rosterVersion: (previous?.rosterVersion ?? 0) + 1,
			issuedAt: isoSeconds(new Date()),
			agents: [...agents]
		};
		const signature = signRoster(roster, signingKey);
		return await callService(
			company,
			v1.uploadRoster({ rosterVersion: roster.rosterVersion, issuedAt: roster.issuedAt, agents: roster.agents, signature })
		);
	} finally {
		signingKey.fill(0);
	}
}

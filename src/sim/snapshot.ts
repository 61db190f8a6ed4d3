/**
 * The snapshot of the simulated service (docs/simulator.md, "Persistence"): its whole state as one
 * JSON file `DATA_DIR/sim.json`, written atomically when the change log is compacted. Version 1 files
 * of earlier runs (rewritten after every change, with no change log) load as they are.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { b64uEncode, generateEd25519KeyPair } from '../lib/crypto/index';
import {
	Store,
	type AppMemory,
	type Attachment,
	type Company,
	type Conversation,
	type Customer,
	type Delivery,
	type IdempotencyEntry,
	type Invite,
	type PlatformKeys
} from './state';

const FORMAT = 'service-simulator-snapshot';
/** 2: continued by the change log `sim.log` of the same generation; 1: the whole state, with no change log. */
export const SNAPSHOT_VERSION = 2;
const READABLE_VERSIONS: readonly number[] = [1, SNAPSHOT_VERSION];

interface Snapshot {
	format: typeof FORMAT;
	version: number;
	/** Counts the compactions; absent in version 1. */
	generation?: number;
	platform: PlatformKeys;
	storageSecret: string;
	companies: Company[];
	conversations: Conversation[];
	invites: Invite[];
	attachments: Attachment[];
	deliveries: Delivery[];
	customers: Customer[];
	appMemory: [string, AppMemory][];
	idempotency: [string, [string, IdempotencyEntry][]][];
}

/** A fresh service: its own platform signing key and storage URL key. */
export function newStore(): Store {
	const platform = generateEd25519KeyPair();
	return new Store({ publicKey: b64uEncode(platform.publicKey), secretKey: b64uEncode(platform.secretKey) }, b64uEncode(randomBytes(32)));
}

function toSnapshot(store: Store, generation: number): Snapshot {
	return {
		format: FORMAT,
		version: SNAPSHOT_VERSION,
		generation,
		platform: store.platform,
		storageSecret: store.storageSecret,
		companies: [...store.companies.values()],
		conversations: [...store.conversations.values()],
		invites: [...store.invites.values()],
		attachments: [...store.attachments.values()],
		deliveries: [...store.deliveries.values()],
		customers: [...store.customers.values()],
		appMemory: [...store.appMemory],
		idempotency: [...store.idempotency].map(([companyId, entries]) => [companyId, [...entries]])
	};
}

function fromSnapshot(snapshot: Snapshot): Store {
	const store = new Store(snapshot.platform, snapshot.storageSecret);
	for (const company of snapshot.companies) store.addCompany(company);
	for (const conversation of snapshot.conversations) store.addConversation(conversation);
	for (const invite of snapshot.invites) store.addInvite(invite);
	for (const attachment of snapshot.attachments) store.addAttachment(attachment);
	for (const delivery of snapshot.deliveries) store.addDelivery(delivery);
	for (const customer of snapshot.customers) store.addCustomer(customer);
	for (const [companyId, memory] of snapshot.appMemory) store.setAppMemory(companyId, memory);
	for (const [companyId, entries] of snapshot.idempotency) {
		for (const [key, entry] of entries) store.storeIdempotency(companyId, key, entry);
	}
	store.takeChanges();
	return store;
}

/** The state of a snapshot file, its version and generation; a damaged or unknown file is an error naming it. */
export async function readSnapshotFile(file: string): Promise<{ store: Store; version: number; generation: number }> {
	let snapshot: Snapshot;
	try {
		snapshot = JSON.parse(await readFile(file, 'utf8'));
	} catch (error) {
		throw new Error(`${file} is not a readable simulator snapshot (${(error as Error).message}); move it away to start afresh`);
	}
	if (snapshot?.format !== FORMAT || !READABLE_VERSIONS.includes(snapshot.version)) {
		throw new Error(`${file} is not a simulator snapshot of version ${READABLE_VERSIONS.join(' or ')}; move it away to start afresh`);
	}
	return { store: fromSnapshot(snapshot), version: snapshot.version, generation: snapshot.generation ?? 0 };
}

/**
 * Writes the whole state, as it is when called, to `file` atomically; returns its size in bytes.
 */
export async function writeSnapshotFile(file: string, store: Store, generation: number): Promise<number> {
	const bytes = Buffer.from(JSON.stringify(toSnapshot(store, generation)));
	await writeFileAtomically(file, bytes);
	return bytes.length;
}

/** A synced temporary file renamed over `file`, then the directory synced so that the rename lasts. */
export async function writeFileAtomically(file: string, bytes: Uint8Array): Promise<void> {
	const temporary = `${file}.${process.pid}.tmp`;
	const handle = await open(temporary, 'w', 0o600);
	try {
		await handle.writeFile(bytes);
		await handle.sync();
	} finally {
		await handle.close();
	}
	await rename(temporary, file);
	const directory = await open(dirname(file), 'r');
	try {
		await directory.sync();
	} finally {
		await directory.close();
	}
}

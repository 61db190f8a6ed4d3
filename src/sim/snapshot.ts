/**
 * Optional persistence of the simulated service, so the demo survives a restart: the state as JSON
 * in `DATA_DIR/sim.json` (written atomically, shortly after each change and on close) and each
 * uploaded ciphertext in `DATA_DIR/sim-objects/{attachmentId}`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
const VERSION = 1;
const WRITE_DELAY_MS = 200;

interface Snapshot {
	format: typeof FORMAT;
	version: typeof VERSION;
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

function toSnapshot(store: Store): Snapshot {
	return {
		format: FORMAT,
		version: VERSION,
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
	for (const conversation of snapshot.conversations) store.conversations.set(conversation.conversationId, conversation);
	for (const invite of snapshot.invites) store.addInvite(invite);
	for (const attachment of snapshot.attachments) store.attachments.set(attachment.attachmentId, attachment);
	for (const delivery of snapshot.deliveries) store.deliveries.set(delivery.deliveryId, delivery);
	for (const customer of snapshot.customers) store.customers.set(customer.customerId, customer);
	for (const [companyId, memory] of snapshot.appMemory) store.appMemory.set(companyId, memory);
	for (const [companyId, entries] of snapshot.idempotency) store.idempotency.set(companyId, new Map(entries));
	return store;
}

export class SnapshotFile {
	private readonly file: string;
	private readonly objectsDir: string;
	private readonly writtenObjects = new Set<string>();
	private timer: ReturnType<typeof setTimeout> | undefined;
	private writing: Promise<void> = Promise.resolve();

	constructor(
		dataDir: string,
		/** Runs before each write (e.g. dropping expired idempotency keys). */
		private readonly beforeWrite: () => void = () => {}
	) {
		this.file = join(dataDir, 'sim.json');
		this.objectsDir = join(dataDir, 'sim-objects');
	}

	get path(): string {
		return this.file;
	}

	/** The stored service, or a fresh one when there is no snapshot yet; a damaged file is an error. */
	async load(): Promise<Store> {
		if (!existsSync(this.file)) return newStore();
		let snapshot: Snapshot;
		try {
			snapshot = JSON.parse(await readFile(this.file, 'utf8'));
		} catch (error) {
			throw new Error(`${this.file} is not a readable simulator snapshot (${(error as Error).message}); move it away to start afresh`);
		}
		if (snapshot.format !== FORMAT || snapshot.version !== VERSION) {
			throw new Error(`${this.file} is not a simulator snapshot of version ${VERSION}; move it away to start afresh`);
		}
		const store = fromSnapshot(snapshot);
		for (const attachment of store.attachments.values()) {
			if (attachment.uploadedAtMs === null) continue;
			store.objects.set(attachment.attachmentId, new Uint8Array(await readFile(join(this.objectsDir, attachment.attachmentId))));
			this.writtenObjects.add(attachment.attachmentId);
		}
		return store;
	}

	/** Writes soon; several changes close together make one write. */
	schedule(store: Store): void {
		if (this.timer) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			void this.flush(store).catch((error) => console.error('[sim] snapshot failed:', error));
		}, WRITE_DELAY_MS);
	}

	/** Writes now (after any write under way), then resolves. */
	flush(store: Store): Promise<void> {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		this.writing = this.writing.catch(() => {}).then(() => this.write(store));
		return this.writing;
	}

	private async write(store: Store): Promise<void> {
		this.beforeWrite();
		await mkdir(this.objectsDir, { recursive: true });
		for (const [attachmentId, bytes] of store.objects) {
			if (this.writtenObjects.has(attachmentId)) continue;
			await writeFile(join(this.objectsDir, attachmentId), bytes, { mode: 0o600 });
			this.writtenObjects.add(attachmentId);
		}
		const temporary = `${this.file}.${process.pid}.tmp`;
		await writeFile(temporary, JSON.stringify(toSnapshot(store)), { mode: 0o600 });
		await rename(temporary, this.file);
	}
}

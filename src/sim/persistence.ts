/**
 * Optional persistence of the simulated service, so the demo survives a restart (docs/simulator.md,
 * "Persistence"): the snapshot `DATA_DIR/sim.json`, the change log `DATA_DIR/sim.log` that continues
 * it, and each uploaded ciphertext in `DATA_DIR/sim-objects/{attachmentId}`. The records changed since
 * the last write are appended as one synced line, shortly after the changes; once the log outgrows
 * COMPACTION_FACTOR times the snapshot, a snapshot of the next generation replaces both, and a log of
 * an older generation than the snapshot (a crash between the two) is left out.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, stat, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { applyEntry, batchLine, entriesOf, headerLine, parseLog } from './change-log';
import { newStore, readSnapshotFile, SNAPSHOT_VERSION, writeFileAtomically, writeSnapshotFile } from './snapshot';
import type { Store } from './state';

const WRITE_DELAY_MS = 200;
/** The log is compacted once it is larger than this many times the snapshot… */
const COMPACTION_FACTOR = 2;
/** …and larger than this, so that a small state is not rewritten for every few changes. */
const MIN_COMPACTED_LOG_BYTES = 1 << 20;

export interface PersistenceOptions {
	/** Runs before each compaction (e.g. dropping expired idempotency keys). */
	beforeCompaction?: () => void;
	/** In place of MIN_COMPACTED_LOG_BYTES. */
	minCompactedLogBytes?: number;
}

export class SimPersistence {
	readonly snapshotFile: string;
	readonly logFile: string;
	private readonly objectsDir: string;
	/** Bytes written so far, for the bench and the specs. */
	readonly written = { logBytes: 0, snapshotBytes: 0, objectBytes: 0 };
	private readonly writtenObjects = new Set<string>();
	/** conversationId → how many of its messages the snapshot and log hold. */
	private readonly loggedMessages = new Map<string, number>();
	private store: Store | undefined;
	private log: FileHandle | undefined;
	private logBytes = 0;
	private generation = 0;
	/** 0 while there is no snapshot of the current version, or after a failed write: the next write makes one. */
	private snapshotBytes = 0;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private writing: Promise<void> = Promise.resolve();

	constructor(
		dataDir: string,
		private readonly options: PersistenceOptions = {}
	) {
		this.snapshotFile = join(dataDir, 'sim.json');
		this.logFile = join(dataDir, 'sim.log');
		this.objectsDir = join(dataDir, 'sim-objects');
	}

	/**
	 * The stored service (snapshot, then the log replayed), or a fresh one when there is none yet; from
	 * then on its changes are written. A damaged file is an error naming it.
	 */
	async load(): Promise<Store> {
		let store: Store;
		if (existsSync(this.snapshotFile)) {
			const snapshot = await readSnapshotFile(this.snapshotFile);
			store = snapshot.store;
			this.generation = snapshot.generation;
			if (snapshot.version === SNAPSHOT_VERSION) {
				this.snapshotBytes = (await stat(this.snapshotFile)).size;
				await this.replayLog(store);
			}
			await this.loadObjects(store);
		} else {
			if (existsSync(this.logFile)) {
				throw new Error(`${this.logFile} continues a snapshot ${this.snapshotFile} that is missing; move it away to start afresh`);
			}
			store = newStore();
		}
		for (const conversation of store.conversations.values())
			this.loggedMessages.set(conversation.conversationId, conversation.messages.length);
		store.takeChanges();
		store.onChange(() => this.schedule());
		this.store = store;
		return store;
	}

	/** Writes soon; several changes close together make one batch. */
	private schedule(): void {
		if (this.timer) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			void this.flush().catch((error) => console.error('[sim] persisting the state failed:', error));
		}, WRITE_DELAY_MS);
	}

	/** Writes the changes now (after any write under way), then resolves. */
	flush(): Promise<void> {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		this.writing = this.writing
			.catch(() => {})
			.then(() => this.write())
			.catch((error) => {
				// The changes taken are in no file, and the log may end in a part of a line: a snapshot replaces both.
				this.snapshotBytes = 0;
				throw error;
			});
		return this.writing;
	}

	/** Writes the last changes and closes the log. */
	async close(): Promise<void> {
		await this.flush();
		await this.log?.close();
		this.log = undefined;
	}

	/** Replays the log of the snapshot's generation; a log of an older one is replaced by an empty one. */
	private async replayLog(store: Store): Promise<void> {
		if (!existsSync(this.logFile)) return this.startLog();
		const bytes = await readFile(this.logFile);
		const { generation, batches, completeLength } = parseLog(this.logFile, bytes);
		if (generation < this.generation) return this.startLog();
		if (generation > this.generation) {
			throw new Error(`${this.logFile} continues a newer snapshot than ${this.snapshotFile}; move both away to start afresh`);
		}
		batches.forEach((batch, index) => {
			try {
				for (const entry of batch) applyEntry(store, entry);
			} catch (error) {
				throw new Error(`${this.logFile} line ${index + 2} does not apply (${(error as Error).message}); move it away to start afresh`);
			}
		});
		if (completeLength < bytes.length) {
			console.warn(`[sim] ${this.logFile}: left out the last ${bytes.length - completeLength} bytes, a write cut short`);
			await truncate(this.logFile, completeLength);
		}
		this.logBytes = completeLength;
	}

	private async loadObjects(store: Store): Promise<void> {
		for (const attachment of store.attachments.values()) {
			if (attachment.uploadedAtMs === null) continue;
			store.objects.set(attachment.attachmentId, new Uint8Array(await readFile(join(this.objectsDir, attachment.attachmentId))));
			this.writtenObjects.add(attachment.attachmentId);
		}
	}

	private async write(): Promise<void> {
		const store = this.store;
		if (!store) throw new Error('load() the state before writing it');
		const changes = store.takeChanges();
		const entries = entriesOf(store, changes, this.loggedMessages);
		if (this.snapshotBytes > 0 && entries.length > 0) {
			// the records as they are now, before the awaits below: one changed meanwhile (an attachment
			// uploaded while another's object is written) is in the next line, after its object
			const line = Buffer.from(batchLine(entries));
			await this.writeObjects(store, changes.records.attachments);
			await this.append(line);
		}
		const minLogBytes = this.options.minCompactedLogBytes ?? MIN_COMPACTED_LOG_BYTES;
		if (this.snapshotBytes === 0 || this.logBytes > Math.max(minLogBytes, COMPACTION_FACTOR * this.snapshotBytes)) {
			await this.compact(store);
		}
	}

	/** Writes the uploaded ciphertexts of these attachments not written yet, each synced. */
	private async writeObjects(store: Store, attachmentIds: Iterable<string>): Promise<void> {
		await mkdir(this.objectsDir, { recursive: true });
		for (const attachmentId of attachmentIds) {
			const bytes = store.objects.get(attachmentId);
			if (!bytes || this.writtenObjects.has(attachmentId)) continue;
			const handle = await open(join(this.objectsDir, attachmentId), 'w', 0o600);
			try {
				await handle.writeFile(bytes);
				await handle.sync();
			} finally {
				await handle.close();
			}
			this.writtenObjects.add(attachmentId);
			this.written.objectBytes += bytes.length;
		}
	}

	private async append(line: Buffer): Promise<void> {
		this.log ??= await open(this.logFile, 'a', 0o600);
		await this.log.appendFile(line);
		await this.log.datasync();
		this.logBytes += line.length;
		this.written.logBytes += line.length;
	}

	/** An empty log of the current generation, written atomically. */
	private async startLog(): Promise<void> {
		await this.log?.close();
		this.log = undefined;
		const header = Buffer.from(headerLine(this.generation));
		await writeFileAtomically(this.logFile, header);
		this.logBytes = header.length;
		this.written.logBytes += header.length;
	}

	/** A snapshot of the next generation, then an empty log of it. */
	private async compact(store: Store): Promise<void> {
		this.options.beforeCompaction?.();
		const unwritten = () => [...store.objects.keys()].filter((attachmentId) => !this.writtenObjects.has(attachmentId));
		for (let pending = unwritten(); pending.length > 0; pending = unwritten()) await this.writeObjects(store, pending);
		// From here to the snapshot's serialisation nothing awaits, so the snapshot holds exactly the changes taken.
		store.takeChanges();
		for (const conversation of store.conversations.values())
			this.loggedMessages.set(conversation.conversationId, conversation.messages.length);
		const snapshotBytes = await writeSnapshotFile(this.snapshotFile, store, this.generation + 1);
		this.generation += 1;
		this.snapshotBytes = snapshotBytes;
		this.written.snapshotBytes += snapshotBytes;
		await this.startLog();
	}
}

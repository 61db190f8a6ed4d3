import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { initCrypto } from '../lib/crypto/index';
import { SimPersistence, type PersistenceOptions } from './persistence';
import { newStore } from './snapshot';
import type { Store } from './state';
import { addAttachment, addCompany, addConversation, addMessage, contentsOf } from './testing/records';

beforeAll(async () => {
	await initCrypto();
});

const newDataDir = () => mkdtempSync(join(tmpdir(), 'sim-persistence-'));

async function reload(dataDir: string): Promise<Store> {
	return new SimPersistence(dataDir).load();
}

/** Every kind of record, then changes in place and a dropped idempotency key. */
function changeEverything(store: Store, round: number): void {
	const company = store.companies.get(`cmp_round${round % 2}`) ?? addCompany(store, `cmp_round${round % 2}`);
	const conversation = addConversation(store, company);
	addMessage(store, conversation, 'user');
	const sent = addMessage(store, conversation, 'company');
	addAttachment(store, conversation);
	conversation.companyReadUpTo = conversation.messages[0].messageId;
	store.changed('conversations', conversation.conversationId);
	company.webhookUrl = `http://127.0.0.1:9/round-${round}`;
	store.changed('companies', company.companyId);
	const delivery = [...store.deliveries.values()][0];
	delivery.attempts += 1;
	store.changed('deliveries', delivery.deliveryId);
	if (round % 3 === 0) store.dropIdempotency(company.companyId, `send-${sent.messageId}`);
}

describe('SimPersistence: the snapshot sim.json and the change log sim.log', () => {
	it('notes no change while nothing persists the state, so none piles up in a simulator without a DATA_DIR', () => {
		const store = newStore();
		changeEverything(store, 0);
		const changes = store.takeChanges();
		expect([...Object.values(changes.records)].map((ids) => ids.size)).toEqual([0, 0, 0, 0, 0, 0, 0]);
		expect(changes.idempotency.size).toBe(0);
	});

	it('gives back every kind of record, from the change log after the first snapshot', async () => {
		const dataDir = newDataDir();
		const persistence = new SimPersistence(dataDir);
		const store = await persistence.load();
		await persistence.flush();
		const snapshot = readFileSync(join(dataDir, 'sim.json'), 'utf8');
		changeEverything(store, 0);
		changeEverything(store, 1);
		await persistence.close();

		expect(readFileSync(join(dataDir, 'sim.json'), 'utf8')).toBe(snapshot);
		expect(statSync(join(dataDir, 'sim.log')).mode & 0o777).toBe(0o600);
		const loaded = await reload(dataDir);
		expect(contentsOf(loaded)).toEqual(contentsOf(store));
		for (const kind of ['companies', 'conversations', 'invites', 'attachments', 'deliveries', 'customers', 'appMemory'] as const) {
			expect(loaded[kind].size, kind).toBeGreaterThan(0);
		}
		expect(loaded.objects.size).toBe(2);
	});

	it('after many batches of changes, a restart gives back the state as it was', async () => {
		const dataDir = newDataDir();
		const persistence = new SimPersistence(dataDir);
		const store = await persistence.load();
		for (let round = 0; round < 30; round++) {
			changeEverything(store, round);
			await persistence.flush();
		}
		await persistence.close();
		expect(contentsOf(await reload(dataDir))).toEqual(contentsOf(store));
	});

	it('leaves out a last line cut short by a crash, keeps all before it, and goes on after it', async () => {
		const dataDir = newDataDir();
		const logFile = join(dataDir, 'sim.log');
		const persistence = new SimPersistence(dataDir);
		const store = await persistence.load();
		changeEverything(store, 0);
		await persistence.flush();
		changeEverything(store, 1);
		await persistence.flush();
		const before = structuredClone(contentsOf(store));
		const lengthBefore = statSync(logFile).size;
		changeEverything(store, 2);
		await persistence.close();
		truncateSync(logFile, lengthBefore + Math.floor((statSync(logFile).size - lengthBefore) / 2));

		const restarted = new SimPersistence(dataDir);
		const loaded = await restarted.load();
		expect(contentsOf(loaded)).toEqual(before);
		expect(statSync(logFile).size).toBe(lengthBefore);
		changeEverything(loaded, 3);
		await restarted.close();
		expect(contentsOf(await reload(dataDir))).toEqual(contentsOf(loaded));
	});

	it('compacts the log into a new snapshot once it outgrows the snapshot, keeping the state identical', async () => {
		const dataDir = newDataDir();
		const persistence = new SimPersistence(dataDir, { minCompactedLogBytes: 0 });
		const store = await persistence.load();
		const generations = new Set<number>();
		for (let round = 0; round < 20; round++) {
			changeEverything(store, round);
			await persistence.flush();
			generations.add(JSON.parse(readFileSync(join(dataDir, 'sim.json'), 'utf8')).generation);
			expect(contentsOf(await reload(dataDir))).toEqual(contentsOf(store));
		}
		expect(generations.size).toBeGreaterThan(3);
		expect(statSync(join(dataDir, 'sim.log')).size).toBeLessThanOrEqual(2 * statSync(join(dataDir, 'sim.json')).size);
		await persistence.close();
	});

	it('leaves out a log older than the snapshot (a crash between the new snapshot and its empty log)', async () => {
		const dataDir = newDataDir();
		const logFile = join(dataDir, 'sim.log');
		const persistence = new SimPersistence(dataDir, { minCompactedLogBytes: 0 });
		const store = await persistence.load();
		changeEverything(store, 0);
		await persistence.flush();
		changeEverything(store, 1);
		await persistence.flush();
		const olderLog = readFileSync(logFile);
		const logLines = () => readFileSync(logFile, 'utf8').split('\n').length - 1;
		expect(logLines()).toBe(2);
		let round = 2;
		do {
			changeEverything(store, round++);
			await persistence.flush();
		} while (logLines() > 1);
		await persistence.close();
		writeFileSync(logFile, olderLog);
		expect(contentsOf(await reload(dataDir))).toEqual(contentsOf(store));
	});

	it('after a failed write, the next one writes a snapshot, losing none of the changes', async () => {
		const dataDir = newDataDir();
		const logFile = join(dataDir, 'sim.log');
		const persistence = new SimPersistence(dataDir);
		const store = await persistence.load();
		await persistence.flush();
		rmSync(logFile);
		mkdirSync(logFile);
		changeEverything(store, 0);
		await expect(persistence.flush()).rejects.toThrow(/EISDIR/);
		rmSync(logFile, { recursive: true });
		changeEverything(store, 1);
		await persistence.close();
		expect(contentsOf(await reload(dataDir))).toEqual(contentsOf(store));
	});

	it('appends as many bytes for one more message after 10,000 messages as after 10', async () => {
		const options: PersistenceOptions = { minCompactedLogBytes: Number.MAX_SAFE_INTEGER };
		const persistence = new SimPersistence(newDataDir(), options);
		const store = await persistence.load();
		const conversation = addConversation(store, addCompany(store, 'cmp_bytes'));
		const bytesOfOneMore = async () => {
			await persistence.flush();
			const before = persistence.written.logBytes;
			addMessage(store, conversation, 'user');
			await persistence.flush();
			return persistence.written.logBytes - before;
		};
		for (let i = 0; i < 10; i++) addMessage(store, conversation, i % 2 ? 'user' : 'company');
		const after10 = await bytesOfOneMore();
		for (let i = 0; i < 10_000; i++) addMessage(store, conversation, i % 2 ? 'user' : 'company');
		const after10000 = await bytesOfOneMore();
		await persistence.close();
		expect(after10).toBeGreaterThan(0);
		expect(after10000).toBeLessThan(after10 * 1.05);
		expect(after10000).toBeGreaterThan(after10 * 0.95);
	});
});

describe('SimPersistence: files it cannot read stop the start with the file named', () => {
	async function writtenDataDir(): Promise<string> {
		const dataDir = newDataDir();
		const persistence = new SimPersistence(dataDir);
		const store = await persistence.load();
		await persistence.flush();
		changeEverything(store, 0);
		await persistence.close();
		return dataDir;
	}

	it('a damaged line before the last one', async () => {
		const dataDir = await writtenDataDir();
		const logFile = join(dataDir, 'sim.log');
		appendFileSync(logFile, '{"batch":[{"kind":\n{"batch":[]}\n');
		await expect(reload(dataDir)).rejects.toThrow(`${logFile} line 3 is not readable`);
	});

	it('a line that is no batch, and an entry that does not apply', async () => {
		const dataDir = await writtenDataDir();
		const logFile = join(dataDir, 'sim.log');
		const complete = readFileSync(logFile);
		appendFileSync(logFile, '{"changes":[]}\n');
		await expect(reload(dataDir)).rejects.toThrow(`${logFile} line 3 is not a batch`);
		writeFileSync(logFile, Buffer.concat([complete, Buffer.from('{"batch":[{"kind":"message","id":"conv_gone","message":{"seq":1}}]}\n')]));
		await expect(reload(dataDir)).rejects.toThrow(`${logFile} line 3 does not apply`);
	});

	it('a log of another format, a log without its snapshot, and a snapshot of an unknown version', async () => {
		const dataDir = await writtenDataDir();
		const logFile = join(dataDir, 'sim.log');
		const snapshotFile = join(dataDir, 'sim.json');
		writeFileSync(logFile, '{"format":"something-else"}\n');
		await expect(reload(dataDir)).rejects.toThrow(`${logFile} is not a simulator change log`);
		writeFileSync(snapshotFile, JSON.stringify({ format: 'service-simulator-snapshot', version: 3 }));
		await expect(reload(dataDir)).rejects.toThrow(`${snapshotFile} is not a simulator snapshot of version 1 or 2`);
		const onlyLog = newDataDir();
		writeFileSync(join(onlyLog, 'sim.log'), '');
		await expect(reload(onlyLog)).rejects.toThrow(`${join(onlyLog, 'sim.log')} continues a snapshot`);
	});
});

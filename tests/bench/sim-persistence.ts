/**
 * `npm run bench:sim`: persisting the simulated service's state (docs/simulator.md, "Persistence").
 * Stores 25,000 messages through the Store, in conversations taken in turn, and after every batch of
 * them persists the changes twice, in one run: through the change log (`SimPersistence`, with its
 * compactions) and, as the reference, by rewriting the whole state as one file the way every write
 * was made before the change log. Prints the CPU time and bytes of each, and the load average.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { initCrypto } from '../../src/lib/crypto/index';
import { SimPersistence } from '../../src/sim/persistence';
import { writeSnapshotFile } from '../../src/sim/snapshot';
import { addCompany, addConversation, addMessage } from '../../src/sim/testing/records';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 25_000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 500);
/** Messages between two writes: a busy demo's changes within the 200 ms write delay. */
const MESSAGES_PER_WRITE = Number(process.env.BENCH_MESSAGES_PER_WRITE ?? 250);

const MB = 1024 * 1024;
const loadAverage = () =>
	loadavg()
		.map((load) => load.toFixed(2))
		.join(' ');

/** CPU time (user + system, ms) of `work`, which is awaited. */
async function cpuMsOf(work: () => Promise<unknown>): Promise<number> {
	const before = process.cpuUsage();
	await work();
	const used = process.cpuUsage(before);
	return (used.user + used.system) / 1000;
}

async function main(): Promise<void> {
	await initCrypto();
	const dataDir = mkdtempSync(join(tmpdir(), 'bench-sim-'));
	const wholeFileDir = mkdtempSync(join(tmpdir(), 'bench-sim-whole-'));
	const wholeFile = join(wholeFileDir, 'sim.json');
	console.log(`load average before: ${loadAverage()}`);
	const persistence = new SimPersistence(dataDir);
	const store = await persistence.load();
	const company = addCompany(store, 'cmp_bench');
	const conversations = Array.from({ length: CONVERSATIONS }, () => addConversation(store, company));
	const logCpu = { ms: 0, lastWriteBytes: 0 };
	const wholeFileCpu = { ms: 0, bytes: 0, lastWriteBytes: 0 };
	let writes = 0;
	for (let stored = 0; stored < MESSAGES;) {
		for (const end = Math.min(MESSAGES, stored + MESSAGES_PER_WRITE); stored < end; stored++) {
			addMessage(store, conversations[stored % CONVERSATIONS], stored % 2 ? 'company' : 'user');
		}
		const logBytesBefore = persistence.written.logBytes;
		logCpu.ms += await cpuMsOf(() => persistence.flush());
		logCpu.lastWriteBytes = persistence.written.logBytes - logBytesBefore;
		wholeFileCpu.ms += await cpuMsOf(async () => (wholeFileCpu.lastWriteBytes = await writeSnapshotFile(wholeFile, store, 0)));
		wholeFileCpu.bytes += wholeFileCpu.lastWriteBytes;
		writes++;
	}
	await persistence.close();
	const { logBytes, snapshotBytes } = persistence.written;
	const logMb = (logBytes + snapshotBytes) / MB;
	console.log(`${MESSAGES} messages in ${CONVERSATIONS} conversations, a write every ${MESSAGES_PER_WRITE} messages (${writes} writes)`);
	console.log(
		`change log: ${logCpu.ms.toFixed(0)} ms CPU, ${logMb.toFixed(1)} MB written (${(logBytes / MB).toFixed(1)} MB of log lines, ` +
			`${(snapshotBytes / MB).toFixed(1)} MB of snapshots); the last write ${(logCpu.lastWriteBytes / 1024).toFixed(0)} KB, ` +
			`${(logCpu.lastWriteBytes / MESSAGES_PER_WRITE).toFixed(0)} bytes a message`
	);
	console.log(
		`whole-file rewrite: ${wholeFileCpu.ms.toFixed(0)} ms CPU, ${(wholeFileCpu.bytes / MB).toFixed(1)} MB written; ` +
			`the last write ${(wholeFileCpu.lastWriteBytes / MB).toFixed(1)} MB`
	);
	console.log(`load average after: ${loadAverage()}`);
	console.log(
		`sim persistence at ${MESSAGES} messages: ${logCpu.ms.toFixed(0)} ms CPU, ${logMb.toFixed(1)} MB written ` +
			`(whole-file rewrite: ${wholeFileCpu.ms.toFixed(0)} ms, ${(wholeFileCpu.bytes / MB).toFixed(1)} MB)`
	);
	rmSync(dataDir, { recursive: true, force: true });
	rmSync(wholeFileDir, { recursive: true, force: true });
}

await main();

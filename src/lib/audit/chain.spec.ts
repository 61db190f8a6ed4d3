import { describe, expect, it } from 'vitest';
import { entryHash, GENESIS_HASH, verifyChain, type AuditEntry, type AuditFields } from './chain';

async function chainOf(count: number): Promise<AuditEntry[]> {
	const entries: AuditEntry[] = [];
	let prevHash = GENESIS_HASH;
	for (let seq = 1; seq <= count; seq++) {
		const fields: AuditFields = {
			seq,
			at: `2026-11-24T10:00:0${seq}.000Z`,
			actorId: 'acc_1',
			actorName: 'Grace',
			action: 'agent.disabled',
			target: `acc_${seq}`,
			details: { z: 1, a: 'x' }
		};
		const hash = await entryHash(prevHash, fields);
		entries.push({ ...fields, prevHash, hash });
		prevHash = hash;
	}
	return entries;
}

describe('the audit hash chain (docs/threat-model.md, "An admin")', () => {
	it('verifies an intact chain, also from its middle, and the order of detail keys does not matter', async () => {
		const entries = await chainOf(5);
		expect(await verifyChain(entries)).toEqual({ ok: true, head: { seq: 5, hash: entries[4].hash } });
		expect(await verifyChain(entries.slice(2), { seq: 2, hash: entries[1].hash })).toMatchObject({ ok: true });
		const reordered = { ...entries[0], details: { a: 'x', z: 1 } };
		expect(await verifyChain([reordered, ...entries.slice(1)])).toMatchObject({ ok: true });
	});

	it('finds a changed, deleted, inserted or reordered entry, and a changed hash', async () => {
		const entries = await chainOf(5);
		const changed = entries.map((entry) => (entry.seq === 3 ? { ...entry, target: 'acc_evil' } : entry));
		expect(await verifyChain(changed)).toMatchObject({ ok: false, brokenAt: 3 });
		expect(await verifyChain(entries.filter((entry) => entry.seq !== 2))).toMatchObject({ ok: false, brokenAt: 2 });
		expect(await verifyChain([entries[0], entries[2], entries[1], entries[3]])).toMatchObject({ ok: false, brokenAt: 2 });
		const rehashed = entries.map((entry) =>
			entry.seq === 4 ? { ...entry, hash: entry.hash.replace(/^./, (c) => (c === '0' ? '1' : '0')) } : entry
		);
		expect(await verifyChain(rehashed)).toMatchObject({ ok: false, brokenAt: 4 });
		const detailChanged = entries.map((entry) => (entry.seq === 1 ? { ...entry, details: { ...entry.details, z: 2 } } : entry));
		expect(await verifyChain(detailChanged)).toMatchObject({ ok: false, brokenAt: 1 });
	});
});

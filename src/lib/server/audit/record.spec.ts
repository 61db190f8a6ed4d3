import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { verifyChain } from '../../audit/chain';
import { listAuditEntries } from '../db/audit';
import { recordAudit } from './record';

describe.each(BACKENDS)('appending to the audit log on %s', (backend) => {
	const databases = useDatabases(backend);

	it('appends made at once keep one chain, numbered without gaps, read back in order both ways', async () => {
		const db = await databases.open();
		const actor = { accountId: 'acc_grace', displayName: 'Grace' };
		await Promise.all(
			Array.from({ length: 25 }, (_, i) => recordAudit(db, { actor, action: 'agent.disabled', target: `acc_${i}` }, new Date()))
		);
		const ascending = await listAuditEntries(db, { after: 0, limit: 100 });
		expect(ascending.map((entry) => entry.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
		expect(await verifyChain(ascending)).toMatchObject({ ok: true, head: { seq: 25 } });
		const newest = await listAuditEntries(db, { limit: 3 });
		expect(newest.map((entry) => entry.seq)).toEqual([25, 24, 23]);
		expect((await listAuditEntries(db, { before: 11, limit: 2 })).map((entry) => entry.seq)).toEqual([10, 9]);
	});
});

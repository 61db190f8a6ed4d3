import { describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { checkHealth } from './health';

describe('the health check (docs/inbox-api.md §9)', () => {
	const databases = useDatabases('PGlite');

	it('is healthy while the database answers, and unavailable once the process stops or the database is gone', async () => {
		const db = await databases.open();
		await expect(checkHealth({ draining: false, db })).resolves.toBeUndefined();
		await expect(checkHealth({ draining: true, db })).rejects.toMatchObject({
			code: 'UNAVAILABLE',
			message: 'this inbox process is stopping'
		});
		await db.close();
		await expect(checkHealth({ draining: false, db })).rejects.toMatchObject({
			code: 'UNAVAILABLE',
			message: 'the inbox database is not available'
		});
	});
});

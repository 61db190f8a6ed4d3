/**
 * The PGlite backend's PostgreSQL settings (pglite.ts, docs/operations.md "Soak"): its buffer cache is
 * the size the inbox sets, for a new database and for one opened again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPglite } from './pglite';

describe('a PGlite database', () => {
	it('runs with the buffer cache the inbox sets, when created and when opened again', async () => {
		const directory = await mkdtemp(join(tmpdir(), 'inbox-pglite-'));
		try {
			for (let opening = 0; opening < 2; opening++) {
				const db = await openPglite(join(directory, 'data'));
				try {
					expect(await db.query('show shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
				} finally {
					await db.close();
				}
			}
		} finally {
			await rm(directory, { recursive: true, force: true });
		}
	}, 120_000);
});

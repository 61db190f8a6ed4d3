import { describe, expect, it, onTestFinished } from 'vitest';
import { useDatabases } from '$test-support/databases';
import type { Database } from './database';
import { connectionName, openPostgres } from './postgres';

interface Connection {
	application_name: string;
	query: string;
}

/** The application names of `db`'s pool connection (the one asking) and of its LISTEN connection. */
async function namesSeenByTheServer(db: Database): Promise<{ pool: string; listen: string[] }> {
	await db.listen('names_spec', () => {});
	const rows = await db.query<Connection & { asking: boolean }>(
		`select application_name, query, pid = pg_backend_pid() as asking from pg_stat_activity where datname = current_database()`
	);
	return {
		pool: rows.find((row) => row.asking)!.application_name,
		listen: rows.filter((row) => row.query === 'listen "names_spec"').map((row) => row.application_name)
	};
}

describe('connection names on PostgreSQL (docs/operations.md "Database connections")', () => {
	const databases = useDatabases('PostgreSQL');
	const newDatabaseUrl = async () => (await databases.databaseUrl())!;

	async function open(url: string): Promise<Database> {
		const db = await openPostgres(url);
		onTestFinished(() => db.close());
		return db;
	}

	it('names the pool inbox:<hostname>:<pid> and the LISTEN connection inbox:<hostname>:<pid>:listen', async () => {
		const names = await namesSeenByTheServer(await open(await newDatabaseUrl()));
		expect(names.pool).toBe(connectionName('pool'));
		expect(names.pool).toMatch(new RegExp(`^inbox:.+:${process.pid}$`));
		expect(names.listen).toEqual([connectionName('listen')]);
		expect(names.listen[0]).toBe(`${names.pool}:listen`);
	});

	it('keeps the application_name that DATABASE_URL carries, on every connection', async () => {
		const url = new URL(await newDatabaseUrl());
		url.searchParams.set('application_name', 'inbox-eu-1');
		expect(await namesSeenByTheServer(await open(url.href))).toEqual({ pool: 'inbox-eu-1', listen: ['inbox-eu-1'] });
	});

	it('keeps PGAPPNAME when DATABASE_URL names nothing', async () => {
		const url = await newDatabaseUrl();
		process.env.PGAPPNAME = 'from-environment';
		onTestFinished(() => void delete process.env.PGAPPNAME);
		expect(await namesSeenByTheServer(await open(url))).toEqual({ pool: 'from-environment', listen: ['from-environment'] });
	});
});

describe('a session idle inside a transaction on PostgreSQL (docs/operations.md "Several processes")', () => {
	const databases = useDatabases('PostgreSQL');

	it('is ended by the server after idleInTransactionTimeoutMs, which rolls it back and releases its locks', async () => {
		const url = (await databases.databaseUrl())!;
		const [paused, other] = await Promise.all([openPostgres(url, { idleInTransactionTimeoutMs: 1_000 }), openPostgres(url)]);
		onTestFinished(() => Promise.all([paused.close(), other.close()]).then(() => undefined));
		const lockFree = async () => (await other.query<{ taken: boolean }>('select pg_try_advisory_xact_lock(7270599) as taken'))[0].taken;
		let resume!: () => void;
		let locked!: () => void;
		const holding = new Promise<void>((resolve) => (locked = resolve));
		const transaction = paused.transaction(async (tx) => {
			await tx.query('select pg_advisory_xact_lock(7270599)');
			await tx.query('create table written_while_paused (id int)');
			locked();
			// a process paused between two statements of its transaction
			await new Promise<void>((resolve) => (resume = resolve));
			await tx.query('select 1');
		});
		await holding;
		expect(await lockFree()).toBe(false);
		await expect.poll(lockFree, { timeout: 10_000 }).toBe(true);
		resume();
		await expect(transaction).rejects.toThrow();
		expect(await other.query("select to_regclass('written_while_paused') as found")).toEqual([{ found: null }]);
	});
});

describe('connectionName', () => {
	it('shortens a long hostname so that the pid and the role fit in the 63 bytes PostgreSQL keeps', () => {
		const host = `pod-${'x'.repeat(80)}`;
		expect(connectionName('pool', host, 4_194_304)).toBe(`inbox:${host.slice(0, 49)}:4194304`);
		expect(connectionName('listen', host, 4_194_304)).toBe(`inbox:${host.slice(0, 42)}:4194304:listen`);
		expect(connectionName('listen', host, 4_194_304)).toHaveLength(63);
	});

	it('leaves a short hostname whole', () => {
		expect(connectionName('pool', 'web-1', 17)).toBe('inbox:web-1:17');
		expect(connectionName('listen', 'web-1', 17)).toBe('inbox:web-1:17:listen');
	});
});

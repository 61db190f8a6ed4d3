/**
 * The PostgreSQL backend through `pg`: a pool for statements with short timeouts (so a failing database
 * answers quickly instead of hanging a webhook), and one dedicated connection per LISTEN channel that
 * reconnects by itself. Every connection names its process in `pg_stat_activity` (docs/operations.md
 * "Database connections").
 */
import { hostname } from 'node:os';
import pg from 'pg';
import type { Database, Queryable } from './queryable';

/** int8 (`bigserial` ids, counts) as a JavaScript number, as PGlite returns it. */
const types = {
	getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
		oid === pg.types.builtins.INT8
			? (value: string) => Number(value)
			: pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
};

const CONNECT_TIMEOUT_MS = 3_000;
const QUERY_TIMEOUT_MS = 8_000;
/** PostgreSQL keeps the first 63 bytes of `application_name` (NAMEDATALEN - 1). */
const APPLICATION_NAME_LIMIT = 63;

/**
 * `inbox:<hostname>:<pid>` for the pool's connections, `inbox:<hostname>:<pid>:listen` for a LISTEN
 * connection; the hostname is shortened so that the pid and the role survive the server's limit. It is
 * given to `pg` as the fallback, so an `application_name` in `DATABASE_URL`, or else `PGAPPNAME`, wins.
 */
export function connectionName(role: 'pool' | 'listen', host = hostname(), pid = process.pid): string {
	const tail = `:${pid}${role === 'listen' ? ':listen' : ''}`;
	return `inbox:${host.slice(0, APPLICATION_NAME_LIMIT - 'inbox:'.length - tail.length)}${tail}`;
}

export interface PostgresOptions {
	/**
	 * PostgreSQL ends a session left idle this long inside a transaction, rolling it back: a process paused
	 * between two statements of a transaction (SIGSTOP, a frozen machine) must not hold its locks, such as
	 * the live events' order lock every process takes to commit, while the others wait
	 * (docs/operations.md "Several processes").
	 */
	idleInTransactionTimeoutMs?: number;
}

export async function openPostgres(connectionString: string, options: PostgresOptions = {}): Promise<Database> {
	const pool = new pg.Pool({
		connectionString,
		max: 10,
		connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
		query_timeout: QUERY_TIMEOUT_MS,
		idleTimeoutMillis: 30_000,
		// sent with the connection's startup parameters, so it holds from its first statement on
		idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
		fallback_application_name: connectionName('pool'),
		types
	});
	// An idle client that loses its server must not crash the process; the next query reconnects.
	pool.on('error', () => {});
	const queryable = (target: pg.Pool | pg.PoolClient): Queryable => ({
		async query<R extends object>(sql: string, params: readonly unknown[] = []) {
			return (await target.query<R>(sql, params as unknown[])).rows;
		},
		async exec(sql: string) {
			await target.query(sql);
		}
	});
	await pool.query('select 1');
	const listeners = new Set<() => Promise<void>>();

	return {
		kind: 'postgres',
		...queryable(pool),
		transaction: (work) =>
			checkedOut(pool, async (client) => {
				try {
					await client.query('begin');
					const result = await work(queryable(client));
					await client.query('commit');
					return result;
				} catch (error) {
					await client.query('rollback').catch(() => {});
					throw error;
				}
			}),
		withConnection: (work) => checkedOut(pool, (client) => work(queryable(client))),
		async listen(channel, onNotify) {
			const stop = await listenWithReconnect(connectionString, channel, onNotify);
			listeners.add(stop);
			return async () => {
				listeners.delete(stop);
				await stop();
			};
		},
		async close() {
			await Promise.all([...listeners].map((stop) => stop()));
			await pool.end();
		}
	};
}

/**
 * Runs `work` on a connection of its own. The server may end the session meanwhile (a restart, the
 * idle-in-transaction timeout): the next statement fails with that, not the process, and the connection
 * is not pooled again.
 */
async function checkedOut<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
	const client = await pool.connect();
	let lost: Error | undefined;
	const onError = (error: Error) => (lost = error);
	client.on('error', onError);
	try {
		return await work(client);
	} finally {
		client.off('error', onError);
		client.release(lost);
	}
}

/** One LISTEN connection that comes back after a failure and then reports `null` (missed notifications). */
async function listenWithReconnect(
	connectionString: string,
	channel: string,
	onNotify: (payload: string | null) => void
): Promise<() => Promise<void>> {
	let stopped = false;
	let client: pg.Client | undefined;
	let retry: ReturnType<typeof setTimeout> | undefined;
	const quoted = `"${channel.replaceAll('"', '""')}"`;

	const connect = async (): Promise<void> => {
		const next = new pg.Client({
			connectionString,
			connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
			fallback_application_name: connectionName('listen'),
			types
		});
		next.on('notification', (message) => onNotify(message.payload ?? ''));
		next.on('error', () => reconnect());
		next.on('end', () => reconnect());
		await next.connect();
		await next.query(`listen ${quoted}`);
		client = next;
	};
	const reconnect = (): void => {
		if (stopped || retry) return;
		const failed = client;
		client = undefined;
		failed?.removeAllListeners();
		failed?.end().catch(() => {});
		const attempt = (delay: number) => {
			retry = setTimeout(() => {
				connect().then(
					() => {
						retry = undefined;
						onNotify(null);
					},
					() => attempt(Math.min(delay * 2, 5_000))
				);
			}, delay);
			retry.unref?.();
		};
		attempt(250);
	};

	await connect();
	return async () => {
		stopped = true;
		if (retry) clearTimeout(retry);
		const current = client;
		client = undefined;
		current?.removeAllListeners();
		await current?.end().catch(() => {});
	};
}

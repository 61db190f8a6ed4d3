/**
 * A throwaway PostgreSQL cluster for the tests' PostgreSQL run: initdb in a temporary directory (as the
 * `postgres` user when the tests run as root), started on a free port of 127.0.0.1 with Debian's binaries,
 * never the machine's own server. Each test file starts its own; databases inside it are cheap. The tests
 * run it without fsync; `npm run bench:server` asks for a durable one (docs/operations.md "Throughput").
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../src/cli/stack/ports';
import { postgresBinDir } from './prerequisites';

const run = promisify(execFile);

export interface PostgresCluster {
	port: number;
	/** A connection URL for `database` (default `postgres`). */
	url(database?: string): string;
	/** Creates an empty database and returns its URL. */
	createDatabase(): Promise<string>;
	/** Stops the server abruptly (as a crash would); `start()` brings it back with its data. */
	stop(): Promise<void>;
	start(): Promise<void>;
	/** Stops the server and deletes its files. */
	destroy(): Promise<void>;
}

function asPostgresUser(command: string, args: string[]): [string, string[]] {
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	return isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

export interface ClusterOptions {
	/** fsync on, as a production server runs (default off: nothing a test writes has to survive a power loss). */
	durable?: boolean;
	/** More server settings, each passed as `-c name=value` (e.g. `shared_preload_libraries`). */
	settings?: Record<string, string>;
}

export async function startPostgresCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
	const bin = postgresBinDir();
	if (!bin)
		throw new Error(
			'PostgreSQL server binaries are missing: run `tsx tests/support/prerequisites.ts` (npm test does) or apt-get install postgresql'
		);
	const root = mkdtempSync(join(tmpdir(), 'inbox-pg-'));
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (isRoot) {
		const { stdout } = await run('id', ['-u', 'postgres']);
		const { stdout: gid } = await run('id', ['-g', 'postgres']);
		chownSync(root, Number(stdout.trim()), Number(gid.trim()));
	}
	const dataDir = join(root, 'data');
	await run(
		...asPostgresUser(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'])
	);
	const port = await freePort();
	const settings = {
		listen_addresses: '127.0.0.1',
		max_connections: '200',
		...(options.durable ? {} : { fsync: 'off' }),
		...options.settings
	};
	const serverOptions = [`-p ${port} -k ${root}`, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(' ');
	const pgCtl = (args: string[]) => run(...asPostgresUser(join(bin, 'pg_ctl'), ['-D', dataDir, ...args]));
	const start = async () => {
		await pgCtl(['-o', serverOptions, '-l', join(root, 'server.log'), '-w', 'start']);
	};
	const stop = async () => {
		await pgCtl(['-m', 'immediate', '-w', 'stop']).catch(() => {});
	};
	await start();
	const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
	let databases = 0;
	return {
		port,
		url,
		async createDatabase() {
			const name = `test_${process.pid}_${++databases}`;
			const client = new pg.Client({ connectionString: url() });
			await client.connect();
			try {
				await client.query(`create database ${name}`);
			} finally {
				await client.end();
			}
			return url(name);
		},
		stop,
		start,
		async destroy() {
			await stop();
			rmSync(root, { recursive: true, force: true });
		}
	};
}

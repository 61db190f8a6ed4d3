/**
 * The cluster of docs/operations.md "Behind a load balancer", started once per test file: one throwaway
 * PostgreSQL, the simulator, two `node build` processes each with its own copy of `DATA_DIR`, and HAProxy
 * running `docs/haproxy.cfg` in front of them, where the simulator delivers its webhooks. A process can
 * be killed, paused, drained and started again in place, on its own port and with its own data.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ensureBuild } from '../../src/cli/stack/build';
import { freePort } from '../../src/cli/stack/ports';
import {
	ensureAccounts,
	ensureCompanyKeys,
	registerCompany,
	startInbox,
	type AccountSpec,
	type CompanyCredentials,
	type RunningInbox
} from '../../src/cli/stack/stack';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import { startHaproxy, type RunningHaproxy } from '../support/haproxy';
import { InboxClient } from '../support/inbox-client';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres';

export const ADMIN: AccountSpec = { username: 'admin', displayName: 'Grace Admin', role: 'admin', password: 'admin password 123' };

/** Short, so that what a killed or paused process held passes to the other within seconds. */
export const WORK_LEASE_MS = 2_000;

/** One of the two inbox processes: its name in HAProxy, its own data directory, and every line it printed in every run. */
export interface ClusterMember {
	name: 'inbox-1' | 'inbox-2';
	url: string;
	dataDir: string;
	/** The running process; replaced by `restart`. */
	inbox: RunningInbox;
	/** Every line printed by every run of this member (its JSON log). */
	readonly output: string[];
}

export interface Cluster {
	postgres: PostgresCluster;
	databaseUrl: string;
	sim: RunningSimulator;
	company: CompanyCredentials;
	haproxy: RunningHaproxy;
	members: readonly [ClusterMember, ClusterMember];
	/** Starts `member` again, on its port with its data, once its last run has ended; resolves once HAProxy sends it work. */
	restart(member: ClusterMember): Promise<void>;
	/** The admin signed in through HAProxy. */
	admin(): Promise<InboxClient>;
	/** A client of `member` directly, with the admin's session and the cluster's origin. */
	adminOn(member: ClusterMember): Promise<InboxClient>;
	stop(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
	await ensureBuild();
	const [postgres, sim] = await Promise.all([startPostgresCluster(), startSimulator({ port: 0, host: '127.0.0.1' })]);
	const databaseUrl = await postgres.createDatabase();
	const [frontPort, ...ports] = await Promise.all([freePort(), freePort(), freePort()]);
	const front = `http://127.0.0.1:${frontPort}`;

	const firstData = mkdtempSync(join(tmpdir(), 'inbox-cluster-1-'));
	await ensureCompanyKeys(firstData);
	const company = await registerCompany(sim.url, firstData, `${front}/webhooks/service`);
	await ensureAccounts({ dataDir: firstData, databaseUrl }, [ADMIN]);
	const secondData = mkdtempSync(join(tmpdir(), 'inbox-cluster-2-'));
	cpSync(join(firstData, 'keys'), join(secondData, 'keys'), { recursive: true });

	const launch = (member: Omit<ClusterMember, 'inbox'>, port: number) =>
		startInbox({
			dataDir: member.dataDir,
			company,
			port,
			databaseUrl,
			env: { ORIGIN: front, WORK_LEASE_MS: String(WORK_LEASE_MS) },
			onOutputLine: (line) => member.output.push(line)
		});
	const bare: Omit<ClusterMember, 'inbox'>[] = [
		{ name: 'inbox-1', url: `http://127.0.0.1:${ports[0]}`, dataDir: firstData, output: [] },
		{ name: 'inbox-2', url: `http://127.0.0.1:${ports[1]}`, dataDir: secondData, output: [] }
	];
	const started = await Promise.all(
		bare.map(async (member, index): Promise<ClusterMember> => ({ ...member, inbox: await launch(member, ports[index]) }))
	);
	const members = [started[0], started[1]] as const;
	const haproxy = await startHaproxy({
		frontPort,
		servers: [`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`],
		checkInterval: '300ms'
	});
	await Promise.all(members.map((member) => haproxy.waitForServer(member.name, 'UP')));

	let admin: InboxClient | undefined;
	const cluster: Cluster = {
		postgres,
		databaseUrl,
		sim,
		company,
		haproxy,
		members,
		async restart(member) {
			const { child } = member.inbox.process;
			if (child.exitCode === null && child.signalCode === null) throw new Error(`${member.name} is still running`);
			member.inbox = await launch(member, ports[members.indexOf(member)]);
			await haproxy.waitForServer(member.name, 'UP');
		},
		async admin() {
			admin ??= await InboxClient.loggedIn(front, ADMIN.username, ADMIN.password);
			return admin;
		},
		async adminOn(member) {
			const direct = new InboxClient(member.url, front);
			direct.cookie = (await cluster.admin()).cookie;
			return direct;
		},
		async stop() {
			await haproxy.stop();
			await Promise.all(members.map((member) => member.inbox.stop()));
			await sim.close();
			await postgres.destroy();
			for (const member of members) rmSync(member.dataDir, { recursive: true, force: true });
		}
	};
	return cluster;
}

/** Starts the test file's cluster before its tests (handing it to `started`) and stops it after them. */
export function useCluster(started: (cluster: Cluster) => void): void {
	let cluster: Cluster | undefined;
	beforeAll(async () => {
		cluster = await startCluster();
		started(cluster);
	}, 600_000);
	afterAll(async () => {
		await cluster?.stop();
	}, 60_000);
}

/**
 * `npm run bench:grants`: in one run, on this machine,
 *  1. seeds 10,000 active conversations in the simulator (its own process, bulk control endpoint);
 *  2. accepts a signed roster adding one agent and measures its grant job to the end: K of each
 *     conversation opened with the company key, sealed for the agent and uploaded through
 *     `POST /v1/conversations/{id}/agent-wraps`, with the job's durable marks and stored operations (PGlite);
 *  3. the reference: the same open + seal + signed upload for every conversation with the same number in
 *     flight, without the job machinery (no database), in the same run.
 * Target: 10,000 conversations granted in under 60 s.
 */
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, waitForUrl } from '../../src/cli/stack/processes';
import { freePort } from '../../src/cli/stack/ports';
import { ensureCompanyKeys, registerCompany } from '../../src/cli/stack/stack';
import { b64uEncode, generateX25519KeyPair, openConversationKey, parseKeyFile, sealConversationKey } from '../../src/lib/crypto/index';
import { acceptRoster } from '../../src/lib/server/admin/roster';
import { createAccount } from '../../src/lib/server/db/accounts';
import { getGrantJob } from '../../src/lib/server/db/grant-jobs';
import { DEFAULT_LEASE_MS } from '../../src/lib/server/db/leases';
import { newIdempotencyKey } from '../../src/lib/server/db/operations';
import { UNLOCK_SHARE_GRACE_MS } from '../../src/lib/server/auth/unlock-share';
import { DEFAULT_CAPS } from '../../src/lib/server/usage/caps';
import { startInbox } from '../../src/lib/server/inbox';
import { loadCompanyKeys } from '../../src/lib/server/keys/files';
import type { Logger } from '../../src/lib/server/log';
import { v1 } from '../../src/lib/wire/v1';
import { signedRoster } from '../support/admin-api';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 10_000);
const TARGET_SECONDS = 60;
const IN_FLIGHT = 16;

// The inbox warns about adapter-node's limit, which does not apply to this in-process server.
process.env.BODY_SIZE_LIMIT ??= '2M';

const quiet: Logger = { info: () => {}, warn: console.warn, error: console.error };

async function main(): Promise<void> {
	console.log(
		`bench:grants on ${cpus().length} cores, load ${loadavg()[0].toFixed(2)}; ${CONVERSATIONS} conversations, ${IN_FLIGHT} uploads in flight`
	);
	const simPort = await freePort();
	const simUrl = `http://127.0.0.1:${simPort}`;
	const sim = startProcess('sim', process.execPath, ['--import', 'tsx', 'src/sim/main.ts'], { SIM_PORT: String(simPort) });
	await waitForUrl(`${simUrl}/_sim/health`, [sim]);
	const dataDir = mkdtempSync(join(tmpdir(), 'bench-grants-'));
	try {
		await ensureCompanyKeys(dataDir);
		// No webhooks are sent (seeded conversations emit none); the URL only has to be valid.
		const company = await registerCompany(simUrl, dataDir, `http://127.0.0.1:${await freePort()}/webhooks/service`);
		const seedStart = performance.now();
		const seeded = await fetch(`${simUrl}/_sim/companies/${company.companyId}/conversations`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ count: CONVERSATIONS })
		});
		if (seeded.status !== 201) throw new Error(`seeding failed: ${seeded.status} ${await seeded.text()}`);
		const { conversationIds } = (await seeded.json()) as { conversationIds: string[] };
		console.log(`  seeded ${conversationIds.length} conversations in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

		const inbox = await startInbox(
			{
				serviceBaseUrl: simUrl,
				serviceApiKey: company.apiKey,
				webhookSecret: company.webhookSecret,
				webhookSecretPrevious: null,
				webhookSecretPreviousUntil: null,
				serviceCompanyId: company.companyId,
				dataDir,
				keysDir: join(dataDir, 'keys'),
				databaseUrl: null,
				listen: {
					socketPath: null,
					host: '127.0.0.1',
					port: 1,
					keepAliveTimeoutMs: null,
					headersTimeoutMs: null,
					shutdownTimeoutMs: 30_000
				},
				origin: 'http://127.0.0.1:1',
				webhookProcessing: true,
				workLeaseMs: DEFAULT_LEASE_MS,
				storageOrigins: [new URL(simUrl).origin],
				caps: DEFAULT_CAPS,
				unlockShareGraceMs: UNLOCK_SHARE_GRACE_MS,
				metrics: { token: null, port: null, host: '127.0.0.1' }
			},
			{ log: quiet }
		);
		try {
			const admin = await createAccount(
				inbox.db,
				{ username: 'bench-admin', displayName: 'Bench', role: 'admin', passwordHash: 'x' },
				new Date()
			);
			const agent = generateX25519KeyPair();
			const entry = { agentKeyId: `agk_${b64uEncode(agent.publicKey).slice(0, 16)}`, publicKey: b64uEncode(agent.publicKey) };
			const signingKey = parseKeyFile(await readFile(join(dataDir, 'keys', 'signing.key'), 'utf8'), 64, 'signing.key');

			// 1. The grant job, from the accepted roster to the last conversation marked.
			const jobStart = performance.now();
			const { grantJob } = await acceptRoster(inbox, admin, signedRoster(company.companyId, 1, [entry], signingKey));
			if (!grantJob) throw new Error('no grant job was started');
			let job = await getGrantJob(inbox.db, grantJob.jobId);
			let listedAt: number | null = null;
			while (job?.state === 'running') {
				await new Promise((resolve) => setTimeout(resolve, 50));
				job = await getGrantJob(inbox.db, grantJob.jobId);
				if (job?.listed && listedAt === null) listedAt = performance.now();
			}
			const jobSeconds = (performance.now() - jobStart) / 1000;
			if (job?.state !== 'done' || job.done !== CONVERSATIONS) throw new Error(`the job ended ${job?.state}: ${JSON.stringify(job)}`);

			// 2. The reference: open, seal and upload each conversation, the same number in flight, no job machinery.
			const keys = await loadCompanyKeys(join(dataDir, 'keys'));
			const wraps = new Map<string, { keyVersion: number; sealed: string }>();
			for (const id of conversationIds) {
				const { value } = await inbox.upstream.call(v1.getConversation(id));
				wraps.set(id, value.wrapForCompany as { keyVersion: number; sealed: string });
			}
			const referenceStart = performance.now();
			let next = 0;
			await Promise.all(
				Array.from({ length: IN_FLIGHT }, async () => {
					while (next < conversationIds.length) {
						const conversationId = conversationIds[next++];
						const wrapForCompany = wraps.get(conversationId)!;
						const conversationKey = openConversationKey(wrapForCompany, conversationId, [keys.current]);
						const wrap = sealConversationKey({
							conversationKey,
							conversationId,
							keyVersion: wrapForCompany.keyVersion,
							recipientPublicKey: agent.publicKey
						});
						conversationKey.fill(0);
						await inbox.upstream.call(
							v1.uploadAgentWraps(conversationId, { rosterVersion: 1, wraps: [{ agentKeyId: entry.agentKeyId, wrap }] }),
							{
								idempotencyKey: newIdempotencyKey()
							}
						);
					}
				})
			);
			const referenceSeconds = (performance.now() - referenceStart) / 1000;

			const rate = CONVERSATIONS / jobSeconds;
			const referenceRate = CONVERSATIONS / referenceSeconds;
			console.log(`\nGrant of ${CONVERSATIONS} conversations to one new agent:`);
			console.log(
				`  grant job (PGlite marks, stored operations)   ${rate.toFixed(0).padStart(6)} conversations/s   ${jobSeconds.toFixed(1).padStart(5)} s in all`
			);
			console.log(
				`  reference: open + seal + signed upload only   ${referenceRate.toFixed(0).padStart(6)} conversations/s   ${referenceSeconds.toFixed(1).padStart(5)} s in all`
			);
			console.log(`  of which listing the service's conversations: ${(((listedAt ?? performance.now()) - jobStart) / 1000).toFixed(1)} s`);
			console.log(`  job / reference: ${(rate / referenceRate).toFixed(2)} of the reference's rate`);
			console.log(
				`  target ${CONVERSATIONS} conversations in < ${TARGET_SECONDS} s: ${jobSeconds < TARGET_SECONDS ? 'met' : 'NOT met'} (${jobSeconds.toFixed(1)} s)`
			);
		} finally {
			await inbox.close();
		}
	} finally {
		await sim.stop();
	}
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	}
);

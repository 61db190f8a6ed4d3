/**
 * The roster and grant jobs for admins (contract 2.9, 6.7; docs/inbox-api.md "Administration"): the
 * latest, the history and the next roster to sign; the upload of a roster signed in the page; the grant
 * jobs it starts, their progress, and resuming a failed one.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { announceGrantProgress, grantJobView } from '../admin/grants';
import { acceptRoster, rosterOverview } from '../admin/roster';
import { getGrantJob, listGrantJobs, reopenGrantJob } from '../db/grant-jobs';
import { latestStoredRoster } from '../db/rosters';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { idParam, requireSession, answer, handle } from './event';
import type { GrantJobList } from '../../inbox-api/roster';

/** A roster of 1,000 agents is about 100 KB of JSON. */

export const getRoster = handle(API.getRosters, async (event, inbox) => {
	requireSession(event);
	return answer(API.getRosters, await rosterOverview(inbox));
});

export const postRoster = handle(API.uploadRoster, async (event, inbox) => {
	const { account } = requireSession(event);
	return answer(API.uploadRoster, await acceptRoster(inbox, account, await readJsonObject(event.request, BODY_LIMITS.roster)), 201);
});

export const getGrantJobs = handle(API.listGrantJobs, async (event, inbox) => {
	requireSession(event);
	return answer(API.listGrantJobs, { data: (await listGrantJobs(inbox.db)).map(grantJobView) } satisfies GrantJobList);
});

export const getOneGrantJob = handle(API.getGrantJob, async (event, inbox) => {
	requireSession(event);
	const jobId = idParam(event.params.jobId, 'jobId');
	const job = await getGrantJob(inbox.db, jobId);
	if (!job) throw new ContractError('NOT_FOUND', `no grant job ${jobId}`);
	return answer(API.getGrantJob, grantJobView(job));
});

export const resumeGrantJob = handle(API.resumeGrantJob, async (event, inbox) => {
	const { account } = requireSession(event);
	await readJsonObject(event.request, BODY_LIMITS.fields);
	const jobId = idParam(event.params.jobId, 'jobId');
	const job = await getGrantJob(inbox.db, jobId);
	if (!job) throw new ContractError('NOT_FOUND', `no grant job ${jobId}`);
	if (job.state !== 'failed') throw new ContractError('STATE_CONFLICT', `the job is ${job.state}; only a failed job is resumed`);
	const latest = await latestStoredRoster(inbox.db);
	if (latest?.rosterVersion !== job.rosterVersion) {
		throw new ContractError(
			'ROSTER_VERSION_CONFLICT',
			`the job grants roster ${job.rosterVersion}; roster ${latest?.rosterVersion} replaced it`
		);
	}
	const now = new Date(inbox.now());
	const reopened = await inbox.db.transaction(async (tx) => {
		const updated = await reopenGrantJob(tx, jobId, now);
		if (updated) await announceGrantProgress(tx, updated, now);
		return updated;
	});
	if (!reopened) throw new ContractError('STATE_CONFLICT', 'the job was taken over by a newer roster');
	inbox.log.info('grant job resumed', { job: jobId, by: account.accountId });
	inbox.grants.wake();
	return answer(API.resumeGrantJob, grantJobView(reopened));
});

/**
 * The share of service targets met in a report's range (docs/reports.md "Service targets";
 * docs/service-targets.md): each first response and each resolution of the range, measured as the report
 * measures it, against the target its conversation's labels give it now, in business hours when the
 * targets count only those. Computed in the server's code from one row per fact, because business hours
 * are a calendar, not a column; read only when the team has targets.
 */
import type { ServiceTargetShare, TargetShare } from '../../inbox-api/reports';
import { metTarget, targetPolicy, type TargetKind, type TargetPolicy } from '../../service-targets/targets';
import type { Queryable } from '../db/database';
import { readSettings } from '../db/settings';
import { RANGE_FROM, RANGE_TO } from './facts';
import type { ReportRange } from './range';

interface MeasuredFact {
	kind: TargetKind;
	agent_id: string | null;
	started_at: Date;
	ended_at: Date;
	labels: string[];
}

/** The range's first responses (from the rollup) and resolutions, each with its agent and its conversation's labels now. */
const MEASURED_SQL = `
select 'firstResponse' as kind, f.first_reply_account_id as agent_id, f.first_in_at as started_at, f.first_reply_at as ended_at,
	coalesce((select array_agg(l.label_id) from conversation_labels l where l.conversation_id = f.conversation_id), '{}') as labels
from conversation_response_facts f
where f.first_reply_at >= ${RANGE_FROM} and f.first_reply_at < ${RANGE_TO} and ($4::text is null or f.first_reply_account_id = $4::text)
union all
select 'resolution', a.actor_account_id, c.created_at, a.created_at,
	coalesce((select array_agg(l.label_id) from conversation_labels l where l.conversation_id = a.conversation_id), '{}')
from conversation_activity a join conversations c on c.conversation_id = a.conversation_id
where a.kind = 'resolved' and a.created_at >= ${RANGE_FROM} and a.created_at < ${RANGE_TO}
	and ($4::text is null or a.actor_account_id = $4::text)`;

const emptyShare = (): TargetShare => ({ met: 0, measured: 0 });

function count(share: ServiceTargetShare, policy: TargetPolicy, fact: MeasuredFact): void {
	const met = metTarget(policy, fact.kind, fact.labels, fact.started_at.getTime(), fact.ended_at.getTime());
	if (met === null) return;
	share[fact.kind].measured++;
	if (met) share[fact.kind].met++;
}

/**
 * Targets met and measured in the range, for the whole scope and by agent (account id); null when the team
 * has no targets. A fact whose conversation has no target of its kind is not measured.
 */
export async function targetsMet(
	db: Queryable,
	range: ReportRange,
	/** Whose facts: one agent's own, or everyone's (null). */
	agentId: string | null
): Promise<{ overall: ServiceTargetShare; byAgent: Record<string, ServiceTargetShare> } | null> {
	const settings = await readSettings(db);
	const policy = targetPolicy(settings.serviceTargets, settings.businessHours);
	if (!policy) return null;
	const facts = await db.query<MeasuredFact>(MEASURED_SQL, [range.from, range.to, range.timeZone, agentId]);
	const overall = { firstResponse: emptyShare(), resolution: emptyShare() };
	const byAgent: Record<string, ServiceTargetShare> = {};
	for (const fact of facts) {
		count(overall, policy, fact);
		if (fact.agent_id) count((byAgent[fact.agent_id] ??= { firstResponse: emptyShare(), resolution: emptyShare() }), policy, fact);
	}
	return { overall, byAgent };
}

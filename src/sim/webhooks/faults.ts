/**
 * Faults injected into webhook delivery through the control API (`POST /_sim/faults`), so tests can
 * prove at-least-once handling (contract 6): the next N attempts answered with a status, timed out
 * or sent twice, or the next N events delivered newest first.
 */

export type AttemptFaultKind = 'status' | 'timeout' | 'duplicate';
export type FaultKind = AttemptFaultKind | 'reorder';

export interface FaultRule {
	kind: FaultKind;
	/** How many more attempts (or events, for `reorder`) it applies to. */
	remaining: number;
	/** For `status`: the status the attempt is recorded with. */
	status?: number;
}

export interface AttemptFault {
	kind: AttemptFaultKind;
	status?: number;
}

/** The rules of every company, applied in the order they were added. */
export class FaultBook {
	private readonly rules = new Map<string, FaultRule[]>();

	add(companyId: string, rule: FaultRule): void {
		const list = this.rules.get(companyId) ?? [];
		list.push({ ...rule });
		this.rules.set(companyId, list);
	}

	list(companyId: string): FaultRule[] {
		return (this.rules.get(companyId) ?? []).map((rule) => ({ ...rule }));
	}

	clear(companyId: string): void {
		this.rules.delete(companyId);
	}

	/** Consumes one use of the first attempt-level rule, if any. */
	takeAttemptFault(companyId: string): AttemptFault | null {
		const rule = this.consume(companyId, (candidate) => candidate.kind !== 'reorder');
		return rule ? { kind: rule.kind as AttemptFaultKind, status: rule.status } : null;
	}

	/**
	 * Consumes one use of the first `reorder` rule: `'hold'` while more events are to be held,
	 * `'release'` for the last one (the held events then go out newest first), null without a rule.
	 */
	takeReorder(companyId: string): 'hold' | 'release' | null {
		const rule = this.consume(companyId, (candidate) => candidate.kind === 'reorder');
		if (!rule) return null;
		return rule.remaining === 0 ? 'release' : 'hold';
	}

	private consume(companyId: string, matches: (rule: FaultRule) => boolean): FaultRule | null {
		const list = this.rules.get(companyId);
		const index = list?.findIndex(matches) ?? -1;
		if (!list || index < 0) return null;
		const rule = list[index];
		rule.remaining--;
		if (rule.remaining <= 0) list.splice(index, 1);
		return rule;
	}
}

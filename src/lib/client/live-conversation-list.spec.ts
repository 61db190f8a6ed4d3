/**
 * The live conversation list (docs/inbox-api.md §4): after any sequence of live changes, filters, new
 * previews, targets and clock moves it holds what the whole-list functions of conversation-list.ts and
 * service-due.ts compute from scratch (they are the reference here, and what a page load counts with),
 * and one live change touches a handful of the 10,000 rows, never all of them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	compareConversations,
	countAssignments,
	countConversations,
	countLifecycle,
	filterConversations,
	type AssignmentView
} from './conversation-list';
import { LiveConversationList, noDrift, type ShownFilter } from './live-conversation-list';
import { countServiceViews, dueByConversation, inServiceView } from './service-due';
import { targetPolicy, type TargetPolicy } from '../service-targets/targets';
import type { ConversationView } from './types';
import { conversationView } from '$test-support/conversation-view';

const ME = 'acc_me';
const POLICY = targetPolicy(
	{ firstResponseMinutes: 60, resolutionMinutes: 24 * 60, businessHoursOnly: false, byLabel: { lbl_vip: { firstResponseMinutes: 15 } } },
	null
);
const HOUR = 3_600_000;
const START = Date.parse('2026-11-23T10:00:00Z');
const at = (hours: number) => new Date(START + hours * HOUR).toISOString();

const conversation = (id: string, extra: Partial<ConversationView> = {}) =>
	conversationView(id, at(0), { createdAt: at(0), startedAt: at(0), ...extra });

const person = (accountId: string) => ({ accountId, displayName: accountId });
const team = (teamId: string) => ({ teamId, name: teamId });

/** Few ids and few times, so changes often move a known conversation and ties are ordered by id. */
const conversations = fc
	.record({
		id: fc.integer({ min: 0, max: 11 }).map((n) => `conv_${n}`),
		lastActivity: fc.integer({ min: 0, max: 5 }),
		created: fc.integer({ min: -30, max: 0 }),
		status: fc.constantFrom('active', 'awaiting_key', 'pending', 'closed' as const),
		teamState: fc.constantFrom('open', 'snoozed', 'resolved' as const),
		assignee: fc.constantFrom(null, person(ME), person('acc_ben'), person('acc_cy')),
		team: fc.constantFrom(null, team('team_a'), team('team_b')),
		labels: fc.subarray(['lbl_vip', 'lbl_slow']),
		unreadCount: fc.integer({ min: 0, max: 2 }),
		customerWrote: fc.boolean(),
		answered: fc.boolean()
	})
	.map((drawn) =>
		conversation(drawn.id, {
			lastActivityAt: at(drawn.lastActivity),
			createdAt: at(drawn.created),
			status: drawn.status,
			teamState: drawn.teamState,
			assignee: drawn.assignee,
			team: drawn.team,
			labels: drawn.labels,
			unreadCount: drawn.unreadCount,
			firstCustomerAt: drawn.customerWrote ? at(drawn.created) : null,
			firstReplyAt: drawn.customerWrote && drawn.answered ? at(drawn.created + 0.5) : null
		})
	);

const filters: fc.Arbitrary<ShownFilter> = fc.record({
	lifecycle: fc.constantFrom(undefined, 'open', 'snoozed', 'resolved' as const),
	label: fc.constantFrom(undefined, 'lbl_vip'),
	assignment: fc.constantFrom<AssignmentView>('all', 'mine', 'unassigned', 'mentions', 'agent:acc_ben', 'team:team_a'),
	myAccountId: fc.constant(ME),
	mentioned: fc.subarray(['conv_1', 'conv_2', 'conv_3']).map((ids) => new Set(ids)),
	status: fc.constantFrom('all', 'active', 'closed' as const),
	unreadOnly: fc.boolean(),
	search: fc.constantFrom('', 'parcel', ' 7 '),
	service: fc.constantFrom('', 'breaching', 'overdue' as const),
	now: fc.integer({ min: -2, max: 30 }).map((hours) => START + hours * HOUR)
});

type Step =
	| { kind: 'upsert'; conversation: ConversationView }
	| { kind: 'filter'; filter: ShownFilter }
	| { kind: 'preview'; conversationId: string; text: string }
	| { kind: 'policy'; policy: TargetPolicy | null }
	| { kind: 'forget' }
	| { kind: 'load'; conversations: ConversationView[] }
	| { kind: 'page'; conversations: ConversationView[] };

const steps: fc.Arbitrary<Step> = fc.oneof(
	{ arbitrary: conversations.map((conversation) => ({ kind: 'upsert' as const, conversation })), weight: 8 },
	{ arbitrary: filters.map((filter) => ({ kind: 'filter' as const, filter })), weight: 2 },
	{
		arbitrary: fc.record({
			kind: fc.constant('preview' as const),
			conversationId: fc.integer({ min: 0, max: 11 }).map((n) => `conv_${n}`),
			text: fc.constantFrom('Where is my parcel?', 'Thanks!')
		}),
		weight: 2
	},
	{ arbitrary: fc.constantFrom(null, POLICY).map((policy) => ({ kind: 'policy' as const, policy })), weight: 1 },
	{ arbitrary: fc.constant({ kind: 'forget' as const }), weight: 1 },
	{ arbitrary: fc.array(conversations, { maxLength: 12 }).map((list) => ({ kind: 'load' as const, conversations: list })), weight: 1 },
	{ arbitrary: fc.array(conversations, { maxLength: 6 }).map((list) => ({ kind: 'page' as const, conversations: list })), weight: 2 }
);

/** The list as a page load would hold it: the latest copy of each conversation, sorted. */
const sortedLatest = (byId: ReadonlyMap<string, ConversationView>) => [...byId.values()].sort(compareConversations);

describe('the live conversation list', () => {
	it('holds, after any live changes, the list, shown rows, deadlines and counts the whole-list functions compute from scratch', () => {
		fc.assert(
			fc.property(filters, fc.array(steps, { maxLength: 40 }), (initialFilter, sequence) => {
				const live = new LiveConversationList(ME);
				const latest = new Map<string, ConversationView>();
				let filter = initialFilter;
				let policy: TargetPolicy | null = null;
				let previews: ReadonlyMap<string, string> = new Map();
				const names: ReadonlyMap<string, string> = new Map([['conv_5', 'Parcel Person']]);
				for (const step of sequence) {
					if (step.kind === 'upsert') {
						live.upsert(step.conversation);
						latest.set(step.conversation.conversationId, step.conversation);
					} else if (step.kind === 'filter') filter = step.filter;
					else if (step.kind === 'preview') {
						previews = new Map(previews).set(step.conversationId, step.text);
						live.textChanged(step.conversationId, previews, names);
					} else if (step.kind === 'forget') {
						previews = new Map();
						live.forgetText();
					} else if (step.kind === 'policy') {
						policy = step.policy;
						live.setPolicy(policy);
					} else if (step.kind === 'page') {
						live.addPage(step.conversations);
						for (const item of step.conversations) latest.set(item.conversationId, item);
					} else {
						latest.clear();
						for (const item of step.conversations) latest.set(item.conversationId, item);
						live.replaceAll(sortedLatest(latest));
					}
					const list = sortedLatest(latest);
					const dues = dueByConversation(list, policy);
					expect(live.items).toEqual(list);
					expect(live.counts).toEqual(countConversations(list));
					expect(live.lifecycleCounts).toEqual(countLifecycle(list));
					expect(live.assignmentCounts).toEqual(countAssignments(list, ME));
					expect(live.serviceCountsAt(filter.now)).toEqual(countServiceViews(dues, filter.now));
					for (const item of list) expect(live.dueOf(item.conversationId)).toEqual(dues.get(item.conversationId));
					const shown = filterConversations(list, filter, previews, names).filter((item) =>
						inServiceView(filter.service, dues.get(item.conversationId), filter.now)
					);
					// a lock forgets the texts and the page shows nothing until it unlocks: the next step asks
					if (step.kind !== 'forget') expect(live.shown(filter, previews, names)).toEqual(shown);
				}
			}),
			{ numRuns: 300 }
		);
	});

	it('drifts, after changes to the rows it loaded, by what they changed in the whole list’s counts, the server’s counts plus its drift being the counts from scratch', () => {
		const everyCount = (list: readonly ConversationView[], policy: TargetPolicy | null) => ({
			filter: countConversations(list),
			lifecycle: countLifecycle(list),
			assignment: countAssignments(list, ME),
			service: countServiceViews(dueByConversation(list, policy), Date.now())
		});
		// a count per account or team counting nothing is absent
		const plus = (a: Record<string, number>, b: Record<string, number>, sparse = false) => {
			const sum = { ...a };
			for (const [key, value] of Object.entries(b)) sum[key] = (sum[key] ?? 0) + value;
			for (const key of Object.keys(sum)) if (sum[key] === 0 && (sparse || !(key in a))) delete sum[key];
			return sum;
		};
		fc.assert(
			fc.property(
				fc.uniqueArray(conversations, { selector: (item) => item.conversationId, minLength: 1 }),
				fc.nat(),
				fc.array(conversations, { maxLength: 20 }),
				fc.constantFrom(null, POLICY),
				(whole, loadedCount, changes, policy) => {
					const sorted = [...whole].sort(compareConversations);
					const loaded = sorted.slice(0, 1 + (loadedCount % sorted.length));
					const live = new LiveConversationList(ME);
					live.setPolicy(policy);
					live.replaceAll(loaded);
					const server = everyCount(sorted, policy);
					const latest = new Map(sorted.map((item) => [item.conversationId, item]));
					for (const change of changes) {
						// a change to a row not loaded is not drift: the page asks the server again for it
						if (!live.get(change.conversationId)) continue;
						live.upsert(change);
						latest.set(change.conversationId, change);
					}
					const now = everyCount([...latest.values()], policy);
					const { drift } = live;
					expect(plus(server.filter.total, drift.filter.total)).toEqual(now.filter.total);
					expect(plus(server.filter.unread, drift.filter.unread)).toEqual(now.filter.unread);
					expect(plus(server.lifecycle, drift.lifecycle)).toEqual(now.lifecycle);
					const { byAgent, byTeam, ...views } = server.assignment;
					const { byAgent: agentDrift, byTeam: teamDrift, ...viewDrift } = drift.assignment;
					expect({ ...plus(views, viewDrift), byAgent: plus(byAgent, agentDrift, true), byTeam: plus(byTeam, teamDrift, true) }).toEqual(
						now.assignment
					);
					expect(plus(server.service, drift.service)).toEqual(now.service);
					// a new list starts without drift
					live.replaceAll(loaded);
					expect(live.drift).toEqual(noDrift());
				}
			),
			{ numRuns: 300 }
		);
	});

	/** 10,000 conversations that note each one of them that is read, newest first. */
	function watchedList() {
		const touched = new Set<string>();
		const watched = (item: ConversationView) =>
			new Proxy(item, {
				get(target, property, receiver) {
					touched.add(target.conversationId);
					return Reflect.get(target, property, receiver);
				}
			});
		const list = Array.from({ length: 10_000 }, (_, n) =>
			watched(
				conversation(`conv_${String(n).padStart(5, '0')}`, {
					lastActivityAt: at(-n / 60),
					status: n % 3 === 0 ? 'pending' : 'active',
					unreadCount: n % 2,
					assignee: n % 4 === 0 ? person(ME) : null,
					labels: n % 5 === 0 ? ['lbl_vip'] : [],
					firstCustomerAt: at(-n / 60)
				})
			)
		).sort(compareConversations);
		return { touched, watched, list };
	}

	it('moves one changed conversation among 10,000 touching a few dozen of them, and counts and shows it without a pass over the list', () => {
		const { touched, watched, list } = watchedList();
		const filter: ShownFilter = {
			status: 'active',
			unreadOnly: true,
			assignment: 'unassigned',
			search: '',
			service: 'overdue',
			now: START
		};
		const live = new LiveConversationList(ME);
		live.replaceAll(list);
		live.setPolicy(POLICY);
		live.shown(filter, new Map(), new Map());
		live.serviceCountsAt(START);
		const before = live.counts.unread.active;

		touched.clear();
		// conv_06000 was pending and read
		const moved = watched({ ...list[6_000], lastActivityAt: at(1), unreadCount: 1, status: 'active', assignee: null });
		live.upsert(moved);
		const shown = live.shown(filter, new Map(), new Map());
		live.serviceCountsAt(START);

		expect(touched.size).toBeLessThan(100);
		expect(live.items[0]).toBe(moved);
		expect(shown[0]).toBe(moved);
		expect(live.counts.unread.active).toBe(before + 1);
	});

	it('shows a conversation a search finds in its new preview without searching the other 10,000 again', () => {
		const { touched, list } = watchedList();
		const filter: ShownFilter = { status: 'all', unreadOnly: false, search: 'parcel', service: '', now: START };
		const live = new LiveConversationList(ME);
		live.replaceAll(list);
		const names = new Map<string, string>();
		expect(live.shown(filter, new Map(), names)).toEqual([]);

		touched.clear();
		const previews = new Map([['conv_04000', 'Where is my parcel?']]);
		live.textChanged('conv_04000', previews, names);
		const shown = live.shown(filter, previews, names);

		expect(touched.size).toBeLessThan(100);
		expect(shown.map((item) => item.conversationId)).toEqual(['conv_04000']);
	});

	it('keeps nothing a search found in forgotten texts: after a lock, the next preview does not bring the old matches back', () => {
		const filter: ShownFilter = { status: 'all', unreadOnly: false, search: 'parcel', service: '', now: START };
		const live = new LiveConversationList(ME);
		live.replaceAll([conversation('conv_a', { lastActivityAt: at(2) }), conversation('conv_b', { lastActivityAt: at(1) })]);
		const names = new Map<string, string>();
		const before = new Map([['conv_b', 'Where is my parcel?']]);
		expect(live.shown(filter, before, names).map((item) => item.conversationId)).toEqual(['conv_b']);

		// locked: the texts are forgotten; unlocked away from the list, a preview comes back before it is shown
		live.forgetText();
		const after = new Map([['conv_a', 'Thanks!']]);
		live.textChanged('conv_a', after, names);

		expect(live.shown(filter, after, names)).toEqual([]);
	});
});

import { describe, expect, it } from 'vitest';
import { presenceSentence, presentAgents, typingEnded, withPresence, type PresenceEvent } from './presence';

const at = (seconds: number) => new Date(Date.parse('2026-11-25T10:00:00Z') + seconds * 1000).toISOString();
const event = (accountId: string, state: PresenceEvent['state'], seconds: number): PresenceEvent => ({
	conversationId: 'conv_1',
	accountId,
	displayName: accountId === 'acc_ben' ? 'Ben' : accountId === 'acc_cleo' ? 'Cleo' : 'Ada',
	state,
	at: at(seconds)
});

describe('presence (docs/inbox-api.md §4 "Presence")', () => {
	it('keeps each agent’s latest word, forgets it when it is old or they left, and never lists oneself', () => {
		let events: PresenceEvent[] = [];
		for (const next of [
			event('acc_ben', 'viewing', 0),
			event('acc_cleo', 'typing', 1),
			event('acc_ada', 'viewing', 1),
			event('acc_ben', 'viewing', -5)
		]) {
			events = withPresence(events, next);
		}
		const now = Date.parse(at(2));
		expect(presentAgents(events, 'acc_ada', now)).toEqual([
			{ accountId: 'acc_cleo', displayName: 'Cleo', typing: true },
			{ accountId: 'acc_ben', displayName: 'Ben', typing: false }
		]);
		expect(presenceSentence(presentAgents(events, 'acc_ada', now))).toBe('Cleo is typing… · Ben is viewing');
		expect(presentAgents(events, 'acc_ada', Date.parse(at(8))).map((agent) => agent.displayName)).toEqual(['Ben']);
		expect(presentAgents(events, 'acc_ada', Date.parse(at(26)))).toEqual([]);
		events = withPresence(events, event('acc_ben', 'left', 3));
		expect(presentAgents(events, 'acc_ada', Date.parse(at(4))).map((agent) => agent.displayName)).toEqual(['Cleo']);
		expect(presenceSentence([])).toBeNull();
		expect(
			presenceSentence([
				{ accountId: 'a', displayName: 'Ben', typing: false },
				{ accountId: 'b', displayName: 'Cleo', typing: false }
			])
		).toBe('Ben and Cleo are viewing');
	});

	it('stops showing an agent typing as soon as their message arrives; they are viewing from then on', () => {
		const events = [event('acc_ben', 'typing', 0), event('acc_cleo', 'typing', 0)];
		const after = typingEnded(events, ['acc_ben']);
		expect(presenceSentence(presentAgents(after, 'acc_ada', Date.parse(at(2))))).toBe('Cleo is typing… · Ben is viewing');
		expect(typingEnded(events, [])).toEqual(events);
		// as of his last word: he fades when his page stops saying it is there
		expect(presentAgents(after, 'acc_ada', Date.parse(at(26))).map((agent) => agent.displayName)).toEqual([]);
	});
});

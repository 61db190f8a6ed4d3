import { describe, expect, it } from 'vitest';
import { composerBlockedReason, composerWarning, type KeyState } from './composer-state';

const active = { status: 'active', trust: 'verified', userDeleted: false } as const;

describe('composerBlockedReason', () => {
	it('lets the agent write only once the key is open', () => {
		expect(composerBlockedReason('open', active)).toBeNull();
		expect(composerBlockedReason('opening', active)).toMatch(/Opening the conversation key/);
		expect(composerBlockedReason('failed', active)).toMatch(/cannot be opened/);
		expect(composerBlockedReason('no-access', active)).toMatch(/not shared with your key/);
	});

	it('says the customer has not joined when a pending conversation has no key yet', () => {
		expect(composerBlockedReason('no-access', { ...active, status: 'pending' })).toBe('The customer has not joined yet.');
		expect(composerBlockedReason('open', { ...active, status: 'pending' })).toBeNull();
	});

	it('puts a failed key before the pending state', () => {
		expect(composerBlockedReason('failed', { ...active, status: 'pending' })).toMatch(/cannot be opened/);
	});
});

describe('composerWarning', () => {
	const keyStates: KeyState[] = ['opening', 'open', 'no-access', 'failed'];

	it('is silent for an active, trusted conversation whatever the key state', () => {
		for (const keyState of keyStates) expect(composerWarning(keyState, active)).toBeNull();
	});

	it('warns that a deleted customer receives nothing, before any other warning', () => {
		expect(composerWarning('open', { ...active, userDeleted: true, trust: 'binding_invalid' })).toMatch(/deleted their account/);
	});

	it('warns about a pending conversation only when the agent could write', () => {
		expect(composerWarning('open', { ...active, status: 'pending' })).toMatch(/once they open the invitation/);
		expect(composerWarning('no-access', { ...active, status: 'pending' })).toBeNull();
	});

	it('warns while the customer waits for the key on a new device', () => {
		expect(composerWarning('open', { ...active, status: 'awaiting_key' })).toMatch(/new device has the key/);
	});

	it('warns against sensitive content in an untrusted conversation', () => {
		expect(composerWarning('open', { ...active, trust: 'binding_invalid' })).toMatch(/not trusted/);
	});

	it('says a reply leaves a resolved conversation resolved', () => {
		expect(composerWarning('open', { ...active, teamState: 'resolved' })).toMatch(/leaves it resolved/);
		expect(composerWarning('open', { ...active, teamState: 'snoozed' })).toBeNull();
	});
});

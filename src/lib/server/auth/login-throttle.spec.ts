import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { LoginThrottle, type AttemptDecision } from './login-throttle';

const limits = { windowMs: 60_000, perAddress: 4, perUsername: 2, inFlightPerUsername: 2, inFlightPerAddress: 3, inFlightMs: 30_000 };
const at = (ms: number) => new Date(Date.UTC(2026, 10, 24, 10) + ms);

function attemptIdOf(decision: AttemptDecision): string {
	if (!('attemptId' in decision)) throw new Error(`refused: wait ${decision.retryAfterSeconds} s`);
	return decision.attemptId;
}

async function fail(throttle: LoginThrottle, address: string, username: string, ms: number): Promise<void> {
	await throttle.finish(attemptIdOf(await throttle.begin(address, username, at(ms))), username, false, at(ms));
}

describe.each(BACKENDS)('login throttle on %s (docs/threat-model.md, "An outsider")', (backend) => {
	const databases = useDatabases(backend);

	it('blocks a username after its failures, tells how long, and forgets them after the window', async () => {
		const throttle = new LoginThrottle(await databases.open(), limits);
		await fail(throttle, '1.1.1.1', 'Ada', 0);
		await fail(throttle, '2.2.2.2', 'ada', 10_000);
		expect(await throttle.begin('3.3.3.3', 'ADA', at(20_000))).toEqual({ retryAfterSeconds: 40 });
		expect(await throttle.begin('3.3.3.3', 'bob', at(20_000))).toHaveProperty('attemptId');
		// The first failure leaves the window at 60 s: one failure is below the limit again.
		expect(await throttle.begin('3.3.3.3', 'ada', at(59_000))).toEqual({ retryAfterSeconds: 1 });
		expect(await throttle.begin('3.3.3.3', 'ada', at(60_001))).toHaveProperty('attemptId');
	});

	it('blocks an address that tries many usernames, and a success clears only the username', async () => {
		const throttle = new LoginThrottle(await databases.open(), limits);
		for (const name of ['a', 'b', 'c', 'd']) await fail(throttle, '9.9.9.9', name, 0);
		expect(await throttle.begin('9.9.9.9', 'e', at(1000))).toEqual({ retryAfterSeconds: 59 });
		await fail(throttle, '8.8.8.8', 'f', 0);
		const success = attemptIdOf(await throttle.begin('8.8.8.8', 'f', at(0)));
		await throttle.finish(success, 'f', true, at(0));
		expect(await throttle.begin('7.7.7.7', 'f', at(1000))).toHaveProperty('attemptId');
	});

	it('counts an attempt before it is verified: attempts sent at once, to two processes, get one allowance', async () => {
		const db = await databases.open();
		// Two inbox processes: two throttles on one database.
		const processes = [new LoginThrottle(db, limits), new LoginThrottle(db, limits)];
		const decisions = await Promise.all(Array.from({ length: 25 }, (_, i) => processes[i % 2].begin(`10.0.0.${i % 3}`, 'grace', at(0))));
		const allowed = decisions.filter((decision) => 'attemptId' in decision);
		// Unfinished, every allowed attempt holds a slot: no more than the username's verifications in flight.
		expect(allowed).toHaveLength(limits.inFlightPerUsername);
		for (const decision of allowed) await processes[0].finish(attemptIdOf(decision), 'grace', false, at(1));
		// Finished as failures, they used up the username's allowance: the 26th attempt waits, whatever the process.
		expect(await processes[1].begin('10.0.0.9', 'grace', at(2))).toEqual({ retryAfterSeconds: 60 });
	});

	it('an attempt whose process died holds its slot only for a while, and stays a failure', async () => {
		const throttle = new LoginThrottle(await databases.open(), { ...limits, perUsername: 5 });
		attemptIdOf(await throttle.begin('1.1.1.1', 'hal', at(0)));
		attemptIdOf(await throttle.begin('1.1.1.1', 'hal', at(0)));
		expect(await throttle.begin('1.1.1.1', 'hal', at(1000))).toEqual({ retryAfterSeconds: 1 });
		expect(await throttle.begin('1.1.1.1', 'hal', at(31_000))).toHaveProperty('attemptId');
		await throttle.prune(at(120_000));
		expect(await throttle.begin('1.1.1.1', 'hal', at(120_000))).toHaveProperty('attemptId');
	});

	it('holds an address to its verifications in flight, and an attempt stops holding its slot inFlightMs after it started', async () => {
		const throttle = new LoginThrottle(await databases.open(), { ...limits, perAddress: 10 });
		for (const name of ['p', 'q', 'r']) attemptIdOf(await throttle.begin('4.4.4.4', name, at(0)));
		expect(await throttle.begin('4.4.4.4', 's', at(1000))).toEqual({ retryAfterSeconds: 1 });
		expect(await throttle.begin('5.5.5.5', 's', at(1000))).toHaveProperty('attemptId');
		expect(await throttle.begin('4.4.4.4', 't', at(limits.inFlightMs))).toHaveProperty('attemptId');
	});

	it('prunes the attempts older than the window, and only those', async () => {
		const db = await databases.open();
		const throttle = new LoginThrottle(db, limits);
		await fail(throttle, '2.2.2.2', 'old', 0);
		await fail(throttle, '2.2.2.2', 'recent', 50_000);
		await throttle.prune(at(61_000));
		expect(await db.query<{ username: string }>('select username from login_attempts order by username')).toEqual([{ username: 'recent' }]);
	});
});

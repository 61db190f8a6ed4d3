/**
 * The Vitest fixture of the simulator's specs: one simulator per spec file with a webhook receiver
 * and a registered company, helpers for isolated companies and the clock, and `expectError` for the
 * error body of docs/contract-gaps.md §2.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { registerCompany, startTestSimulator, V1Client, type HttpResult, type TestCompany, type TestSimulator } from './harness';
import { WebhookReceiver } from './receiver';

export * from './harness';

export interface CompanyWithReceiver {
	company: TestCompany;
	client: V1Client;
	receiver: WebhookReceiver;
}

export interface SimulatorFixture extends CompanyWithReceiver {
	simulator: TestSimulator;
	/** Another company with a receiver of its own, so scripted answers and logs do not mix. */
	isolatedCompany(): Promise<CompanyWithReceiver>;
	/** Real time again: no offset, scale 1, signatures on real time. */
	resetClock(): Promise<void>;
}

/** For a spec file: a simulator, a webhook receiver and one company delivering to it; stopped afterwards. */
export function useSimulator(): SimulatorFixture {
	const receivers: WebhookReceiver[] = [];
	const fixture = {
		async isolatedCompany() {
			const receiver = await WebhookReceiver.start();
			receivers.push(receiver);
			const company = await registerCompany(fixture.simulator, receiver.url);
			return { company, client: new V1Client(fixture.simulator.url, company), receiver };
		},
		async resetClock() {
			await fixture.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0, scale: 1, signatureClock: 'real' });
		}
	} as SimulatorFixture;
	beforeAll(async () => {
		fixture.simulator = await startTestSimulator();
		Object.assign(fixture, await fixture.isolatedCompany());
	});
	afterAll(async () => {
		await fixture.simulator?.close();
		for (const receiver of receivers) await receiver.close();
	});
	return fixture;
}

/** An error answer: the status and the `error.code` of the body. */
export function expectError(result: HttpResult, status: number, code: string): void {
	expect([result.status, result.body?.error?.code]).toEqual([status, code]);
}

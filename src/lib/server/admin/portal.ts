/**
 * The service's portal (contract 2.3, 5.1 rule 4, 6.6): where a business enters a rotated company key
 * and rotates its webhook secret. A real service's portal is operated by a person; the embedded
 * simulator's portal is its control API (docs/simulator.md), which the inbox drives itself when the
 * service it talks to is a simulator on this machine.
 */
import { ContractError } from '../../errors';
import { isLoopbackHost } from '../config';

export interface PortalKeyEntry {
	publicKey: string;
	keyVersion: number;
	rotationSignature: string;
}

export class ServicePortal {
	private detected: Promise<boolean> | undefined;

	constructor(private readonly serviceBaseUrl: string) {}

	/**
	 * Whether the service is the simulator on the loopback interface (its control API answers only there);
	 * an answer is remembered, a service that could not be reached is asked again next time.
	 */
	isSimulator(): Promise<boolean> {
		this.detected ??= (async () => {
			if (!isLoopbackHost(new URL(this.serviceBaseUrl).hostname)) return false;
			try {
				const response = await fetch(`${this.serviceBaseUrl}/_sim/health`, { signal: AbortSignal.timeout(3_000) });
				return response.ok && ((await response.json().catch(() => ({}))) as { ok?: unknown }).ok === true;
			} catch (error) {
				this.detected = undefined;
				throw new ContractError('UPSTREAM_UNAVAILABLE', `the service could not be reached: ${(error as Error).message}`);
			}
		})();
		return this.detected;
	}

	private async control<T>(path: string, body: unknown): Promise<T> {
		let response: Response;
		try {
			response = await fetch(`${this.serviceBaseUrl}${path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
				signal: AbortSignal.timeout(10_000)
			});
		} catch (error) {
			throw new ContractError('UPSTREAM_UNAVAILABLE', `the simulator's portal could not be reached: ${(error as Error).message}`);
		}
		const answer = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
		if (!response.ok) {
			const code =
				answer.error?.code === 'SIGNATURE_INVALID' || answer.error?.code === 'INVALID_INPUT' ? answer.error.code : 'INVALID_RESPONSE';
			throw new ContractError(
				code,
				`the simulator's portal refused: ${answer.error?.message ?? response.status}`,
				response.status >= 500 ? 502 : 400
			);
		}
		return answer as T;
	}

	/** Keys and API → Rotate (contract 6.6) in the simulator's portal. */
	async enterCompanyKey(companyId: string, entry: PortalKeyEntry): Promise<void> {
		await this.control(`/_sim/companies/${encodeURIComponent(companyId)}/keys/rotate`, entry);
	}

	/** A new webhook secret from the simulator's portal; it signs webhooks at once (contract 5.1 rule 4). */
	rotateWebhookSecret(companyId: string): Promise<{ webhookSecret: string; previousValidUntil: string }> {
		return this.control(`/_sim/companies/${encodeURIComponent(companyId)}/webhook-secret/rotate`, {});
	}
}

/**
 * Test support for the simulator (Vitest specs and Playwright tests alike, so no test runner here):
 * start it in-process, register a company with real key pairs, sign `/v1` requests exactly as
 * contract 5.1 says, call the control API, start conversations through the simulated customer app,
 * and wait for asynchronous effects.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the simulator's JSON answers are read loosely; the specs assert on them */
import {
	b64uEncode,
	buildInviteLink,
	encryptMessage,
	generateEd25519KeyPair,
	generateInviteSecret,
	generateX25519KeyPair,
	initCrypto,
	newClientMessageId,
	openConversationKey,
	signRequest,
	type Ed25519KeyPair,
	type Envelope,
	type Wrap,
	type X25519KeyPair
} from '../../lib/crypto/index';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../server';

// Specs may build keys at module level.
await initCrypto();

export interface HttpResult<T = any> {
	status: number;
	headers: Headers;
	body: T;
}

async function parse(response: Response): Promise<HttpResult> {
	const text = await response.text();
	let body: unknown = text;
	try {
		body = text === '' ? null : JSON.parse(text);
	} catch {
		// not JSON: keep the text
	}
	return { status: response.status, headers: response.headers, body };
}

export interface TestSimulator {
	sim: RunningSimulator;
	url: string;
	control<T = any>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>;
	close(): Promise<void>;
}

export async function startTestSimulator(options: SimulatorOptions = {}): Promise<TestSimulator> {
	const sim = await startSimulator(options);
	return {
		sim,
		url: sim.url,
		control: async (method, path, body) =>
			parse(
				await fetch(sim.url + path, {
					method,
					headers: body === undefined ? {} : { 'content-type': 'application/json' },
					body: body === undefined ? undefined : JSON.stringify(body)
				})
			),
		close: () => sim.close()
	};
}

export interface TestCompany {
	companyId: string;
	apiKey: string;
	webhookSecret: string;
	platformPublicKey: string;
	keys: X25519KeyPair;
	signing: Ed25519KeyPair;
	/** Current first, as `openConversationKey` wants them. */
	keyPairs: X25519KeyPair[];
}

export async function registerCompany(
	simulator: TestSimulator,
	webhookUrl: string,
	extra: Record<string, unknown> = {}
): Promise<TestCompany> {
	const keys = generateX25519KeyPair();
	const signing = generateEd25519KeyPair();
	const created = await simulator.control('POST', '/_sim/companies', {
		publicKey: b64uEncode(keys.publicKey),
		signingPublicKey: b64uEncode(signing.publicKey),
		webhookUrl,
		...extra
	});
	if (created.status !== 201) throw new Error(`company registration failed: ${JSON.stringify(created.body)}`);
	return { ...created.body, keys, signing, keyPairs: [keys] };
}

export interface SignOptions {
	/** Defaults to the real time in seconds. */
	t?: number;
	idempotencyKey?: string | null;
	secret?: string;
	apiKey?: string | null;
	/** The method written into the canonical string, when it should differ from the one sent. */
	signedMethod?: string;
	signedPathAndQuery?: string;
	signedBody?: string;
	headers?: Record<string, string>;
}

let keyCounter = 0;

/** A `/v1` client that signs every request (contract 5.1) and can be told to get it wrong. */
export class V1Client {
	constructor(
		readonly url: string,
		readonly company: Pick<TestCompany, 'apiKey' | 'webhookSecret'>
	) {}

	signatureHeader(method: string, pathAndQuery: string, body: string, options: SignOptions = {}): string {
		return signRequest({
			secret: options.secret ?? this.company.webhookSecret,
			t: options.t ?? Math.floor(Date.now() / 1000),
			method: options.signedMethod ?? method,
			pathAndQuery: options.signedPathAndQuery ?? pathAndQuery,
			body: options.signedBody ?? body
		}).header;
	}

	async request<T = any>(method: string, pathAndQuery: string, body?: unknown, options: SignOptions = {}): Promise<HttpResult<T>> {
		const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
		const headers: Record<string, string> = { 'x-service-signature': this.signatureHeader(method, pathAndQuery, raw, options) };
		const apiKey = options.apiKey === undefined ? this.company.apiKey : options.apiKey;
		if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
		if (raw !== '') headers['content-type'] = 'application/json';
		if (method !== 'GET' && options.idempotencyKey !== null)
			headers['idempotency-key'] = options.idempotencyKey ?? `test-${Date.now()}-${++keyCounter}`;
		return parse(
			await fetch(this.url + pathAndQuery, { method, headers: { ...headers, ...options.headers }, body: raw === '' ? undefined : raw })
		);
	}

	get<T = any>(pathAndQuery: string, options?: SignOptions): Promise<HttpResult<T>> {
		return this.request<T>('GET', pathAndQuery, undefined, options);
	}

	post<T = any>(pathAndQuery: string, body: unknown = {}, options?: SignOptions): Promise<HttpResult<T>> {
		return this.request<T>('POST', pathAndQuery, body, options);
	}
}

export interface StartedConversation {
	conversationId: string;
	customerId: string;
	inviteSecret: Uint8Array;
	link: string;
}

/** `POST /v1/invites`, the link of contract 6.3, and its redemption by the simulated app. */
export async function startConversation(simulator: TestSimulator, client: V1Client, company: TestCompany): Promise<StartedConversation> {
	const invite = await client.post('/v1/invites', {});
	if (invite.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invite.body)}`);
	const inviteSecret = generateInviteSecret();
	const link = buildInviteLink(invite.body.inviteUrl, inviteSecret, company.keys.publicKey);
	const redeemed = await simulator.control('POST', '/_sim/customers/redeem', { link });
	if (redeemed.status !== 201) throw new Error(`redeem failed: ${JSON.stringify(redeemed.body)}`);
	return { conversationId: invite.body.conversationId, customerId: redeemed.body.customerId, inviteSecret, link };
}

/** K of a conversation, opened as the business does (contract 6.1). */
export async function openCompanyKey(client: V1Client, company: TestCompany, conversationId: string): Promise<Uint8Array> {
	const record = await client.get(`/v1/conversations/${conversationId}`);
	return openConversationKey(record.body.wrapForCompany as Wrap, conversationId, company.keyPairs);
}

/** A reply built as contract 4.2 says. */
export function companyEnvelope(
	conversationKey: Uint8Array,
	conversationId: string,
	text: string,
	clientMessageId = newClientMessageId()
): Envelope {
	return encryptMessage({ text, conversationKey, conversationId, senderType: 'company', clientMessageId, keyVersion: 1 });
}

/** Polls until `probe` returns a value other than undefined/false, or fails naming `what`. */
export async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined | false> | T | undefined | false,
	timeoutMs = 15_000
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

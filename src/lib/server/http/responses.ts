/**
 * JSON in and out for the inbox's routes (docs/inbox-api.md §1): the error body `{ error: { code, message } }`
 * with the ContractError's status, and request bodies read with a size limit and a JSON content type.
 */
import { concatBytes } from '../../crypto/encoding';
import { ContractError } from '../../errors';

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }
	});
}

/** `429 RATE_LIMITED`, answered with `Retry-After` in seconds (docs/inbox-api.md §1). */
export class RateLimited extends ContractError {
	constructor(
		message: string,
		readonly retryAfterSeconds: number
	) {
		super('RATE_LIMITED', message);
	}
}

/** The response for any thrown value: a ContractError as itself, anything else as a 500 that reveals nothing. */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
	if (error instanceof ContractError) {
		const retry: Record<string, string> = error instanceof RateLimited ? { 'retry-after': String(error.retryAfterSeconds) } : {};
		return json({ error: { code: error.code, message: error.message } }, error.status ?? 400, { ...retry, ...headers });
	}
	return json({ error: { code: 'INTERNAL', message: 'the inbox failed to handle this request' } }, 500, headers);
}

/**
 * The body limits of the inbox's own routes (docs/inbox-api.md §1 "bodies"), named by what a body carries:
 * over its limit a request is `413 PAYLOAD_TOO_LARGE`, read no further.
 */
export const BODY_LIMITS = {
	/** `{}` or a few fields: ids, a state, a setting, a label's name. */
	fields: 4 * 1024,
	/** A sign-in, an account or a join form; a conversation's label ids. */
	form: 8 * 1024,
	/** A canned reply's text. */
	text: 16 * 1024,
	/** A list of up to 200 ids (message authors); the settings (up to 400 holidays, 200 labels' targets); what a route takes when it names nothing smaller. */
	list: 64 * 1024,
	/** One sealed `in1` record (a note, a profile) of up to 64 KiB of text. */
	sealedRecord: 96 * 1024,
	/** A signed roster of up to 1,000 agents (contract 2.9). */
	roster: 1024 * 1024
} as const;

/** How much of a refused body is still read (and dropped), so the client gets the answer on a clean connection. */
const DRAIN_LIMIT = 8 * 1024 * 1024;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number): Promise<void> {
	let read = alreadyRead;
	try {
		for (;;) {
			const step = await reader.read();
			if (step.done) return;
			read += step.value.length;
			if (read > DRAIN_LIMIT) break;
		}
		// Stryker disable next-line BlockStatement: equivalent: cancelling a failed stream rejects, which is ignored below
	} catch {
		return;
	}
	await reader.cancel().catch(() => {});
}

/** Reads at most `limit` bytes of the body; more is `413 PAYLOAD_TOO_LARGE` (the rest is read and dropped). */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
	const tooLarge = () => new ContractError('PAYLOAD_TOO_LARGE', `the body must be at most ${limit} bytes`);
	if (!request.body) return new Uint8Array(0);
	const reader = request.body.getReader();
	const declared = Number(request.headers.get('content-length'));
	if (Number.isFinite(declared) && declared > limit) {
		await drain(reader, 0);
		throw tooLarge();
	}
	const chunks: Uint8Array[] = [];
	let length = 0;
	for (;;) {
		let step: ReadableStreamReadResult<Uint8Array>;
		try {
			step = await reader.read();
		} catch {
			// The adapter cuts bodies over its own BODY_SIZE_LIMIT this way.
			throw new ContractError('PAYLOAD_TOO_LARGE', 'the body is larger than the server accepts');
		}
		if (step.done) break;
		length += step.value.length;
		if (length > limit) {
			await drain(reader, length);
			throw tooLarge();
		}
		chunks.push(step.value);
	}
	return concatBytes(...chunks);
}

export function requireJsonContentType(request: Request): void {
	const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (type !== 'application/json') throw new ContractError('UNSUPPORTED_MEDIA_TYPE', 'send the body as Content-Type: application/json');
}

/** Parses JSON text that must be an object; an empty text is `{}`. */
export function parseJsonObject(text: string): Record<string, unknown> {
	if (text.trim() === '') return {};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw new ContractError('INVALID_REQUEST', 'the body is not valid JSON');
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw new ContractError('INVALID_REQUEST', 'the body must be a JSON object');
	return value as Record<string, unknown>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(bytes: Uint8Array): string {
	try {
		return utf8.decode(bytes);
	} catch {
		throw new ContractError('INVALID_REQUEST', 'the body is not UTF-8');
	}
}

/** A JSON object body of at most `limit` bytes (docs/inbox-api.md §1: 64 KiB on the inbox's own routes). */
export async function readJsonObject(request: Request, limit: number = BODY_LIMITS.list): Promise<Record<string, unknown>> {
	const bytes = await readBodyBytes(request, limit);
	if (bytes.length === 0) return {};
	requireJsonContentType(request);
	return parseJsonObject(decodeUtf8(bytes));
}

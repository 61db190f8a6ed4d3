/**
 * The change log of the simulated service (docs/simulator.md, "Persistence"): `DATA_DIR/sim.log`, a
 * header line naming the generation of the snapshot it continues, then one line per written batch,
 * `{"batch":[…]}`, holding the records changed since the batch before — a conversation without its
 * messages, and each new message on its own, so that the bytes of a change do not grow with the
 * conversation. A last line cut short by a crash is left out.
 */
import type {
	AppMemory,
	Attachment,
	Changes,
	Company,
	Conversation,
	Customer,
	Delivery,
	IdempotencyEntry,
	Invite,
	Message,
	RecordKind,
	Store
} from './state';

interface LoggedRecord {
	companies: Company;
	conversations: Omit<Conversation, 'messages'>;
	invites: Invite;
	attachments: Attachment;
	deliveries: Delivery;
	customers: Customer;
	appMemory: AppMemory;
}

type RecordEntry = { [Kind in RecordKind]: { kind: Kind; id: string; record: LoggedRecord[Kind] } }[RecordKind];

export type LogEntry =
	| RecordEntry
	| { kind: 'message'; id: string; message: Message }
	| { kind: 'idempotency'; id: string; key: string; entry: IdempotencyEntry | null };

/**
 * The entries of the changed records as they are now. `loggedMessages` (conversationId → how many of
 * its messages the log or snapshot already holds) is brought up to date.
 */
export function entriesOf(store: Store, changes: Changes, loggedMessages: Map<string, number>): LogEntry[] {
	const entries: LogEntry[] = [];
	for (const [kind, ids] of Object.entries(changes.records) as [RecordKind, Set<string>][]) {
		for (const id of ids) {
			if (kind !== 'conversations') {
				entries.push({ kind, id, record: store[kind].get(id)! } as RecordEntry);
				continue;
			}
			const { messages, ...header } = store.conversations.get(id)!;
			entries.push({ kind, id, record: header });
			for (const message of messages.slice(loggedMessages.get(id) ?? 0)) entries.push({ kind: 'message', id, message });
			loggedMessages.set(id, messages.length);
		}
	}
	for (const [companyId, keys] of changes.idempotency) {
		for (const key of keys) {
			entries.push({ kind: 'idempotency', id: companyId, key, entry: store.idempotency.get(companyId)?.get(key) ?? null });
		}
	}
	return entries;
}

/** Applies one entry; an entry that does not fit the state is an error. */
export function applyEntry(store: Store, entry: LogEntry): void {
	switch (entry.kind) {
		case 'companies':
			return store.addCompany(entry.record);
		case 'invites':
			return store.addInvite(entry.record);
		case 'attachments':
			return store.addAttachment(entry.record);
		case 'deliveries':
			return store.addDelivery(entry.record);
		case 'customers':
			return store.addCustomer(entry.record);
		case 'appMemory':
			return store.setAppMemory(entry.id, entry.record);
		case 'conversations':
			return store.addConversation({ ...entry.record, messages: store.conversations.get(entry.id)?.messages ?? [] });
		case 'message': {
			const messages = store.conversations.get(entry.id)?.messages;
			if (!messages || entry.message.seq > messages.length + 1) {
				throw new Error(`message ${entry.message.messageId} does not follow its conversation`);
			}
			messages[entry.message.seq - 1] = entry.message;
			return;
		}
		case 'idempotency':
			if (entry.entry) store.storeIdempotency(entry.id, entry.key, entry.entry);
			else store.dropIdempotency(entry.id, entry.key);
			return;
		default:
			throw new Error(`unknown kind of entry ${JSON.stringify((entry as { kind: unknown }).kind)}`);
	}
}

const LOG_FORMAT = 'service-simulator-log';
const LOG_VERSION = 1;

/** The first line of a log continuing the snapshot of `generation`. */
export function headerLine(generation: number): string {
	return `${JSON.stringify({ format: LOG_FORMAT, version: LOG_VERSION, generation })}\n`;
}

/** One line of the log, with its newline. */
export function batchLine(entries: LogEntry[]): string {
	return `${JSON.stringify({ batch: entries })}\n`;
}

function parseLine(file: string, line: string, lineNumber: number): Record<string, unknown> {
	try {
		const parsed = JSON.parse(line);
		if (typeof parsed === 'object' && parsed !== null) return parsed;
	} catch (error) {
		throw new Error(`${file} line ${lineNumber} is not readable (${(error as Error).message}); move it away to start afresh`);
	}
	throw new Error(`${file} line ${lineNumber} is not an object; move it away to start afresh`);
}

/**
 * The generation and batches of a log, and the byte length of its complete lines: bytes after the
 * last newline are a write a crash cut short. Any other damage is an error naming the file and line.
 */
export function parseLog(file: string, bytes: Buffer): { generation: number; batches: LogEntry[][]; completeLength: number } {
	const completeLength = bytes.lastIndexOf(0x0a) + 1;
	const [header, ...lines] = bytes.subarray(0, completeLength).toString('utf8').split('\n').slice(0, -1);
	const parsedHeader = header === undefined ? {} : parseLine(file, header, 1);
	if (parsedHeader.format !== LOG_FORMAT || parsedHeader.version !== LOG_VERSION || typeof parsedHeader.generation !== 'number') {
		throw new Error(`${file} is not a simulator change log of version ${LOG_VERSION}; move it away to start afresh`);
	}
	const batches = lines.map((line, index) => {
		const parsed = parseLine(file, line, index + 2);
		if (!Array.isArray(parsed.batch)) throw new Error(`${file} line ${index + 2} is not a batch of the simulator's change log`);
		return parsed.batch as LogEntry[];
	});
	return { generation: parsedHeader.generation, batches, completeLength };
}

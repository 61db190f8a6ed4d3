/**
 * An inbox stack whose database holds thousands of conversations before it starts, written with the
 * server's own database functions: the 10,000-conversation list of tests/inbox-scale.e2e.ts and of
 * `npm run bench:list` (docs/operations.md "The list at 10,000 conversations").
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild } from '../../src/cli/stack/build';
import { startStack } from '../../src/cli/stack/stack';
import { ensureConversation, recordStart, updateStatus } from '../../src/lib/server/db/conversations';
import { openDatabase, type Queryable } from '../../src/lib/server/db/database';
import { storeMessages, type StoredMessage } from '../../src/lib/server/db/messages';
import { ADMIN, InboxStack } from './inbox-e2e';
import { seedPgliteDataDir } from './pglite-template';

/** Each tenth conversation's status, in turn: 6 active, 1 awaiting a key, 1 pending, 2 closed. */
const STATUSES = ['active', 'active', 'active', 'active', 'active', 'active', 'awaiting_key', 'pending', 'closed', 'closed'] as const;
type SeededStatus = (typeof STATUSES)[number];

/** Messages are written this many conversations at a time. */
const MESSAGE_BATCH = 500;

/** The number of seeded conversations in each status filter of the list. */
export function seededStatusCounts(count: number): Record<'all' | SeededStatus, number> {
	const counts = { all: count, active: 0, awaiting_key: 0, pending: 0, closed: 0 };
	for (let i = 0; i < count; i++) counts[STATUSES[i % STATUSES.length]]++;
	return counts;
}

/** `count` envelopes, the customer's and the company's in turn, of random bytes as long as a short message's. */
function history(conversationId: string, count: number, at: Date): StoredMessage[] {
	return Array.from({ length: count }, (_, j) => ({
		messageId: `msg_${randomBytes(12).toString('base64url')}`,
		conversationId,
		seq: j + 1,
		senderType: j % 2 === 0 ? 'user' : 'company',
		contentType: 'text',
		encryption: {
			v: 1,
			scheme: 'sc1',
			keyVersion: 1,
			clientMessageId: `cm_${randomBytes(12).toString('base64url')}`,
			nonce: randomBytes(24).toString('base64url'),
			ciphertext: randomBytes(272).toString('base64url')
		},
		attachment: null,
		createdAt: new Date(at.getTime() + j * 120_000).toISOString()
	}));
}

/** One seeded conversation (a pending one has no start, so no messages), returning its messages to store. */
async function seedConversation(tx: Queryable, status: SeededStatus, at: Date, verified: boolean, messagesEach: number) {
	const conversationId = `conv_${randomBytes(12).toString('base64url')}`;
	await ensureConversation(tx, conversationId, status === 'pending' ? 'pending' : 'active', at);
	if (status === 'pending') return [];
	await recordStart(
		tx,
		{
			conversationId,
			status: status === 'awaiting_key' ? 'awaiting_key' : 'active',
			trust: verified ? 'verified' : 'unverified',
			wrapForCompany: { keyVersion: 1, sealed: randomBytes(48 + 40 + conversationId.length).toString('base64url') },
			userPublicKey: randomBytes(32).toString('base64url'),
			rewrapState: status === 'awaiting_key' ? 'queued' : 'none',
			rewrapRequestedBy: null,
			startedEventAt: at
		},
		at
	);
	if (status === 'closed') await updateStatus(tx, conversationId, { status: 'closed' }, at);
	return history(conversationId, messagesEach, at);
}

/**
 * `count` conversations, one a minute from 2026-01-01, each started one with `messagesEach` stored
 * envelopes (ciphertext no key opens: the list shows them without reading them).
 */
export async function seedConversations(dataDir: string, count: number, messagesEach = 0): Promise<void> {
	const database = await openDatabase({ dataDir, databaseUrl: null });
	const start = Date.UTC(2026, 0, 1);
	try {
		await database.transaction(async (tx) => {
			let pending: StoredMessage[] = [];
			for (let i = 0; i < count; i++) {
				const at = new Date(start + i * 60_000);
				pending = pending.concat(await seedConversation(tx, STATUSES[i % STATUSES.length], at, i % 3 !== 0, messagesEach));
				if ((i + 1) % MESSAGE_BATCH === 0 || i === count - 1) {
					await storeMessages(
						tx,
						pending.map((message) => ({ message, eventId: null }))
					);
					pending = [];
				}
			}
		});
	} finally {
		await database.close();
	}
}

/** A stack on a fresh data directory holding `count` seeded conversations of `messagesEach` messages. */
export async function startSeededInbox(count: number, messagesEach = 0): Promise<InboxStack> {
	await ensureBuild();
	const dataDir = mkdtempSync(join(tmpdir(), 'inbox-ui-scale-'));
	const stack = await startStack({
		dataDir,
		accounts: [ADMIN],
		prepare: async () => {
			await seedPgliteDataDir(dataDir);
			await seedConversations(dataDir, count, messagesEach);
		}
	});
	return new InboxStack(stack);
}

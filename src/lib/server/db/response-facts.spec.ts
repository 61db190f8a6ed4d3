import { describe, expect, it } from 'vitest';
import { BACKENDS, someoneWaitsForALock, useDatabases } from '$test-support/databases';
import { deferred } from '$test-support/deferred';
import { random } from '$test-support/random';
import { incomingEvent } from '$test-support/webhooks';
import { applyMessageBatch, messagesOf } from '../webhooks/message-batch';
import { createAccount, deleteAccount, type Account } from './accounts';
import type { Database, Queryable } from './database';
import { newLease } from './leases';
import { claimAuthorship } from './message-authors';
import { storeMessages, type StoredMessage } from './messages';
import { migrate } from './migrate';
import { claimDueEvents, storeWebhookEvents } from './webhook-events';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const MINUTE = 60_000;
const at = (minutes: number) => new Date(T0 + minutes * MINUTE);

/** One write of the server: a customer message or a reply's author, each at a minute after T0. */
type Write = { conversation: string; minute: number } & ({ kind: 'in' } | { kind: 'out'; agent: Account });

interface FirstResponse {
	conversation_id: string;
	first_in_at: Date | null;
	first_reply_at: Date | null;
	first_reply_account_id: string | null;
}

let serial = 0;

function customerMessage(conversationId: string, minute: number): StoredMessage {
	const id = `m${++serial}`;
	return {
		messageId: `msg_${id}`,
		conversationId,
		seq: serial,
		senderType: 'user',
		contentType: 'text',
		encryption: { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: `usr_${id}`, nonce: 'n', ciphertext: 'c' },
		attachment: null,
		createdAt: at(minute).toISOString()
	};
}

/** A write as the server does it: a customer message stored, or a reply's author recorded. */
async function write(tx: Queryable, step: Write): Promise<void> {
	if (step.kind === 'in') await storeMessages(tx, [{ message: customerMessage(step.conversation, step.minute), eventId: null }]);
	else await claimAuthorship(tx, { conversationId: step.conversation, clientMessageId: `srv_${++serial}` }, step.agent, at(step.minute));
}

/** What docs/reports.md defines, from the writes alone: the first customer message, the first reply at or after it. */
function expected(writes: readonly Write[]): FirstResponse[] {
	const conversations = [...new Set(writes.map((step) => step.conversation))].sort();
	return conversations.flatMap((conversation) => {
		const own = writes.filter((step) => step.conversation === conversation);
		const firstIn = Math.min(...own.filter((step) => step.kind === 'in').map((step) => step.minute));
		if (firstIn === Infinity) return [];
		const replies = own.filter((step) => step.kind === 'out' && step.minute >= firstIn).sort((a, b) => a.minute - b.minute);
		const reply = replies[0] as (Write & { kind: 'out' }) | undefined;
		return [
			{
				conversation_id: conversation,
				first_in_at: at(firstIn),
				first_reply_at: reply ? at(reply.minute) : null,
				first_reply_account_id: reply ? reply.agent.accountId : null
			}
		];
	});
}

/** `count` writes drawn by `next` in `conversations` conversations, in the 40 minutes after T0: half of them replies. */
function randomWrites(next: () => number, count: number, conversations: number, agents: readonly Account[]): Write[] {
	return Array.from({ length: count }, (_, index) => ({
		conversation: `conv_${index % conversations}`,
		minute: Math.floor(next() * 40),
		...(next() < 0.5 ? { kind: 'in' as const } : { kind: 'out' as const, agent: agents[Math.floor(next() * agents.length)] })
	}));
}

/** The kept first responses of the conversations with a customer message. */
async function kept(db: Queryable): Promise<FirstResponse[]> {
	return db.query<FirstResponse>(
		`select conversation_id, first_in_at, first_reply_at, first_reply_account_id from conversation_response_facts
		 where first_in_at is not null order by conversation_id`
	);
}

describe.each(BACKENDS)('first responses kept as they are stored on %s (docs/reports.md "Cost")', (backend) => {
	const databases = useDatabases(backend);

	async function team(db: Database): Promise<[Account, Account]> {
		const account = (username: string) => createAccount(db, { username, displayName: username, role: 'agent', passwordHash: 'x' }, at(0));
		return [await account('ada'), await account('ben')];
	}

	it('a reply before the first customer message is no response; an earlier customer message finds the first reply again', async () => {
		const db = await databases.open();
		const [ada, ben] = await team(db);
		const writes: Write[] = [];
		const step = async (next: Write, response: Partial<FirstResponse> | undefined) => {
			writes.push(next);
			await db.transaction((tx) => write(tx, next));
			const [row] = await kept(db);
			if (response) expect(row).toMatchObject(response);
			else expect(row).toBeUndefined();
			expect(await kept(db)).toEqual(expected(writes));
		};
		await step({ conversation: 'conv_a', kind: 'out', agent: ada, minute: 60 }, undefined);
		await step(
			{ conversation: 'conv_a', kind: 'in', minute: 65 },
			{ first_in_at: at(65), first_reply_at: null, first_reply_account_id: null }
		);
		// at the same instant as the customer's message is after it
		await step(
			{ conversation: 'conv_a', kind: 'out', agent: ben, minute: 65 },
			{ first_reply_at: at(65), first_reply_account_id: ben.accountId }
		);
		await step({ conversation: 'conv_a', kind: 'out', agent: ada, minute: 63 }, { first_reply_at: at(65) });
		await step({ conversation: 'conv_a', kind: 'out', agent: ada, minute: 80 }, { first_reply_at: at(65) });
		// the service's time of a message that arrives late is earlier than the first one's
		await step(
			{ conversation: 'conv_a', kind: 'in', minute: 0 },
			{ first_in_at: at(0), first_reply_at: at(60), first_reply_account_id: ada.accountId }
		);
		await step(
			{ conversation: 'conv_a', kind: 'out', agent: ben, minute: 30 },
			{ first_reply_at: at(30), first_reply_account_id: ben.accountId }
		);
		await step({ conversation: 'conv_a', kind: 'in', minute: 90 }, { first_in_at: at(0), first_reply_at: at(30) });
		// a deleted account's reply stays the response, without its author, as the reply itself does
		await deleteAccount(db, ben.accountId);
		expect((await kept(db))[0]).toMatchObject({ first_reply_at: at(30), first_reply_account_id: null });
	});

	it('ends as docs/reports.md defines it whatever the order the writes arrive in, one by one or several customer messages at once', async () => {
		const db = await databases.open();
		const next = random(11);
		const writes = randomWrites(next, 120, 8, await team(db));
		for (let index = 0; index < writes.length;) {
			const size = 1 + Math.floor(next() * 4);
			const run = writes.slice(index, (index += size));
			const customers = run.filter((step) => step.kind === 'in');
			await db.transaction(async (tx) => {
				await storeMessages(
					tx,
					customers.map((step) => ({ message: customerMessage(step.conversation, step.minute), eventId: null }))
				);
				for (const step of run.filter((entry) => entry.kind === 'out')) await write(tx, step);
			});
		}
		expect(await kept(db)).toEqual(expected(writes));
	});

	it('keeps them for a run of webhook messages stored in one statement', async () => {
		const db = await databases.open();
		const [ada] = await team(db);
		const writes: Write[] = [
			{ conversation: 'conv_w', kind: 'out', agent: ada, minute: 5 },
			{ conversation: 'conv_w', kind: 'out', agent: ada, minute: 20 }
		];
		for (const step of writes) await write(db, step);
		const messages = [customerMessage('conv_w', 10), customerMessage('conv_w', 3), customerMessage('conv_v', 1)];
		writes.push(
			...messages.map((message) => ({
				conversation: message.conversationId,
				kind: 'in' as const,
				minute: (Date.parse(message.createdAt) - T0) / MINUTE
			}))
		);
		const events = messages.map((message) => ({
			id: `evt_${message.messageId}`,
			type: 'message.created',
			createdAt: message.createdAt,
			data: { ...message, attachment: undefined }
		}));
		await storeWebhookEvents(db, events.map(incomingEvent), at(30));
		const claimed = await claimDueEvents(db, 10, newLease(15_000), at(30));
		expect(await applyMessageBatch(db, claimed, messagesOf(claimed, at(30))!, at(30))).toEqual({ stored: 3 });
		expect(await kept(db)).toEqual(expected(writes));
		expect((await kept(db)).map((row) => row.first_reply_at)).toEqual([null, at(5)]);
	});

	it('migration 30 fills them from the messages and authors an earlier inbox stored', async () => {
		const db = await databases.open();
		const writes = randomWrites(random(5), 60, 6, await team(db));
		for (const step of writes) await write(db, step);
		await db.exec(`drop table conversation_response_facts; delete from schema_migrations where version = 30`);
		expect(await migrate(db)).toEqual([30]);
		expect(await kept(db)).toEqual(expected(writes));
	});

	it.runIf(backend === 'PostgreSQL')(
		'a reply and a customer message of the same conversation stored at once: neither is lost',
		async () => {
			const db = await databases.open();
			const [ada, ben] = await team(db);
			/** Holds a transaction open after `first`, until a write of the same conversation waits for its lock. */
			async function meanwhile(first: Write, second: Write): Promise<void> {
				const [wrote, held] = [deferred<void>(), deferred<void>()];
				const firstDone = db.transaction(async (tx) => {
					await write(tx, first);
					wrote.resolve();
					await held.promise;
				});
				await wrote.promise;
				const secondDone = db.transaction((tx) => write(tx, second));
				await someoneWaitsForALock(db);
				held.resolve();
				await Promise.all([firstDone, secondDone]);
			}
			const writes: Write[] = [
				{ conversation: 'conv_x', kind: 'in', minute: 10 },
				{ conversation: 'conv_x', kind: 'out', agent: ada, minute: 20 },
				{ conversation: 'conv_y', kind: 'out', agent: ben, minute: 20 },
				{ conversation: 'conv_y', kind: 'in', minute: 10 },
				{ conversation: 'conv_z', kind: 'in', minute: 30 },
				{ conversation: 'conv_z', kind: 'out', agent: ada, minute: 20 }
			];
			// a customer message's first transaction, a reply meanwhile; then the other way round
			await meanwhile(writes[0], writes[1]);
			await meanwhile(writes[2], writes[3]);
			// an earlier customer message while a reply between it and the first one is being recorded
			await write(db, writes[4]);
			await meanwhile(writes[5], { conversation: 'conv_z', kind: 'in', minute: 15 });
			writes.push({ conversation: 'conv_z', kind: 'in', minute: 15 });
			expect(await kept(db)).toEqual(expected(writes));
			expect((await kept(db)).map((row) => row.first_reply_at)).toEqual([at(20), at(20), at(20)]);
		}
	);
});

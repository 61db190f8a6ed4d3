/**
 * The away reply (docs/service-targets.md "Away reply"): with the team's `awayReply`, a customer who
 * writes while the team is away gets the admin's text, once per conversation per away period, as a
 * normal `sc1` message: the server opens the conversation key through the company's wrap (as for a
 * rewrap), encrypts the text, and sends it through the service like an agent's reply, authored "Away
 * reply". Any process may run it at any time: the (conversation, period) row is claimed once, the send is
 * a stored operation (same request and Idempotency-Key at every attempt, also after a crash), and a send
 * that failed is tried again by the next run.
 */
import { encryptMessage, newClientMessageId } from '../../crypto/message';
import { openConversationKey } from '../../crypto/wrap';
import { awayPeriod } from '../../service-targets/away-reply';
import { BusinessCalendar } from '../../service-targets/business-hours';
import { v1 } from '../../wire/v1';
import { lockConversation, recordActivity } from '../db/conversations';
import type { Queryable } from '../db/database';
import { appendLiveEvents } from '../db/live-events';
import { storeMessage } from '../db/messages';
import { readSettings } from '../db/settings';
import { errorText } from '../log';
import { isTransientFailure } from '../upstream/client';
import { availabilities } from './availability';
import type { ConversationServices } from './rewrap';

/** How far back a customer's message may be and still get an away reply (a process that was down catches up this far). */
const LOOK_BACK_MS = 10 * 60_000;
/** A claimed reply not yet sent is tried again after this long. */
const RETRY_AFTER_MS = 30_000;

/**
 * Conversations whose customer wrote lately and after the company's last message: who might be answered;
 * with the time of the last reply that was not an away reply (a "nobody online" period ends there).
 */
const CANDIDATES = `
	select w.conversation_id, w.customer_at, c.last_reply_at
	from (select conversation_id, max(created_at) as customer_at from conversation_messages
	      where sender_type = 'user' and created_at > $1 group by conversation_id) w
	cross join lateral (select max(m.created_at) as last_reply_at from conversation_messages m
	      where m.conversation_id = w.conversation_id and m.sender_type = 'company'
	        and not exists (select 1 from away_replies a
	                        where a.conversation_id = m.conversation_id and a.client_message_id = m.encryption ->> 'clientMessageId')) c
	join conversations k on k.conversation_id = w.conversation_id and k.status = 'active'
	where w.customer_at > coalesce(c.last_reply_at, '-infinity')`;

interface Candidate {
	conversation_id: string;
	customer_at: Date;
	last_reply_at: Date | null;
}

interface Claim {
	conversation_id: string;
	period: string;
	client_message_id: string;
}

/** Claims the period's reply of a conversation: once, whoever asks (a second claim finds the row and does nothing). */
async function claim(db: Queryable, conversationId: string, period: string, now: Date): Promise<void> {
	await db.query(
		`insert into away_replies (conversation_id, period, client_message_id, claimed_at, next_attempt_at) values ($1, $2, $3, $4, $4)
		 on conflict do nothing`,
		[conversationId, period, newClientMessageId(), now]
	);
}

export class AwayReplies {
	constructor(private readonly options: ConversationServices) {}

	/** Answers every customer who wrote lately while the team was away, and tries again the replies not yet sent; returns how many were sent. */
	async run(): Promise<number> {
		const { db } = this.options;
		const now = new Date(this.options.now());
		const { awayReply, businessHours } = await readSettings(db);
		if (!awayReply) {
			// turned off: what was claimed and never sent is not sent later, out of its time
			await db.query(`update away_replies set outcome = 'dropped', settled_at = $1 where outcome is null`, [now]);
			return 0;
		}
		const calendar = businessHours ? new BusinessCalendar(businessHours) : null;
		const nobodyOnline = ![...(await availabilities(db, now)).values()].includes('online');
		const candidates = await db.query<Candidate>(CANDIDATES, [new Date(now.getTime() - LOOK_BACK_MS)]);
		for (const candidate of candidates) {
			const lastReply = candidate.last_reply_at ? new Date(candidate.last_reply_at).getTime() : null;
			const period = awayPeriod(awayReply, calendar, new Date(candidate.customer_at).getTime(), nobodyOnline, lastReply);
			if (period) await claim(db, candidate.conversation_id, period, now);
		}
		return this.sendDue(awayReply.text, now);
	}

	/** Sends the claimed replies that are due (claimed now, or a failed attempt's wait over), each under a short lease. */
	private async sendDue(text: string, now: Date): Promise<number> {
		const due = await this.options.db.query<Claim>(
			`update away_replies set next_attempt_at = $2 where (conversation_id, period) in (
				select conversation_id, period from away_replies where outcome is null and next_attempt_at <= $1
				order by next_attempt_at limit 20 for update skip locked)
			 returning conversation_id, period, client_message_id`,
			[now, new Date(now.getTime() + RETRY_AFTER_MS)]
		);
		let sent = 0;
		for (const reply of due) if (await this.send(reply, text, now)) sent++;
		return sent;
	}

	private async send(reply: Claim, text: string, now: Date): Promise<boolean> {
		const { db, log } = this.options;
		const conversationId = reply.conversation_id;
		try {
			const state = await db.transaction((tx) => lockConversation(tx, conversationId));
			if (!state?.wrapForCompany) return this.drop(reply, 'no company wrap is known for this conversation', now);
			const keys = await this.options.companyKeys();
			const conversationKey = openConversationKey(state.wrapForCompany, conversationId, [keys.current, ...keys.previous]);
			let request;
			try {
				// a later attempt sends the first attempt's request, stored with the operation
				const encryption = encryptMessage({
					conversationKey,
					conversationId,
					senderType: 'company',
					clientMessageId: reply.client_message_id,
					keyVersion: state.wrapForCompany.keyVersion,
					text
				});
				request = v1.sendMessage({ conversationId, contentType: 'text', encryption });
			} finally {
				conversationKey.fill(0);
			}
			const result = await this.options.upstream.perform(`away-reply:${conversationId}:${reply.period}`, request);
			const item = result.value;
			await db.transaction(async (tx) => {
				await this.settle(tx, reply, 'sent', now);
				if (!(await storeMessage(tx, item, null))) return;
				await recordActivity(tx, conversationId, new Date(item.createdAt), now);
				await appendLiveEvents(
					tx,
					[
						{ type: 'message.created', conversationId, payload: { conversationId, message: item } },
						{ type: 'conversation.changed', conversationId, payload: { conversationId } }
					],
					now
				);
			});
			log.info('away reply sent', { conversation: conversationId, period: reply.period });
			return true;
		} catch (error) {
			if (isTransientFailure(error)) {
				log.warn('away reply not sent yet', { conversation: conversationId, period: reply.period, reason: errorText(error) });
				return false;
			}
			// the service refused it for good (the conversation closed, the customer deleted their account, …)
			return this.drop(reply, errorText(error), now);
		}
	}

	private async drop(reply: Claim, reason: string, now: Date): Promise<false> {
		await this.settle(this.options.db, reply, 'dropped', now);
		this.options.log.error('away reply dropped', { conversation: reply.conversation_id, period: reply.period, reason });
		return false;
	}

	private async settle(db: Queryable, reply: Claim, outcome: 'sent' | 'dropped', now: Date): Promise<void> {
		await db.query('update away_replies set outcome = $3, settled_at = $4 where conversation_id = $1 and period = $2', [
			reply.conversation_id,
			reply.period,
			outcome,
			now
		]);
	}
}

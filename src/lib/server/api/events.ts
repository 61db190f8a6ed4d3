/**
 * `GET /api/events` (docs/inbox-api.md §7): the live stream of the caller's session, resumable with
 * `Last-Event-ID` (or `?lastEventId=`), within the caps of streams open at once per session and per
 * account (§1 "Caps": `429 RATE_LIMITED` over them).
 */
import { openLiveStream } from '../live/stream';
import { requireSession, route } from './event';

export const getEvents = route(async (event, inbox) => {
	const session = requireSession(event);
	const streamId = await inbox.usage.openStream(session.account.accountId, session.tokenHash, new Date(inbox.now()));
	return openLiveStream({
		usage: inbox.usage,
		streamId,
		db: inbox.db,
		hub: inbox.hub,
		log: inbox.log,
		account: session.account,
		sessionTokenHash: session.tokenHash,
		lastEventId: event.request.headers.get('last-event-id') ?? event.url.searchParams.get('lastEventId'),
		now: inbox.now
	});
});

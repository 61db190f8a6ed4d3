/**
 * `GET /api/events` (docs/inbox-api.md §7): the live stream of the caller's session, resumable with
 * `Last-Event-ID` (or `?lastEventId=`).
 */
import { openLiveStream } from '../live/stream';
import { requireSession, route } from './event';

export const getEvents = route(async (event, inbox) => {
	const session = requireSession(event);
	return openLiveStream({
		db: inbox.db,
		hub: inbox.hub,
		log: inbox.log,
		account: session.account,
		sessionTokenHash: session.tokenHash,
		lastEventId: event.request.headers.get('last-event-id') ?? event.url.searchParams.get('lastEventId'),
		now: inbox.now
	});
});

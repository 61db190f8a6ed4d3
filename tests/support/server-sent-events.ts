/**
 * A text/event-stream read as it arrives (docs/inbox-api.md §7), for the specs' readers of `GET /api/events`:
 * each event with its `id`, name and data, in order; comments and events without data are skipped, as a
 * browser's EventSource skips them.
 */

export interface StreamedEvent {
	id?: string;
	event: string;
	/** The data lines, joined with newlines. */
	data: string;
}

/** Calls `onEvents` with the events of each chunk of `body` until it ends or breaks (an abort included). */
export async function readServerSentEvents(body: ReadableStream<Uint8Array>, onEvents: (events: StreamedEvent[]) => void): Promise<void> {
	const decoder = new TextDecoder();
	let buffer = '';
	try {
		for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
			buffer += decoder.decode(chunk, { stream: true });
			const events: StreamedEvent[] = [];
			let end: number;
			while ((end = buffer.indexOf('\n\n')) >= 0) {
				const event = parseBlock(buffer.slice(0, end));
				buffer = buffer.slice(end + 2);
				if (event) events.push(event);
			}
			onEvents(events);
		}
	} catch {
		// aborted or cut
	}
}

function parseBlock(block: string): StreamedEvent | null {
	const event: StreamedEvent = { event: 'message', data: '' };
	const data: string[] = [];
	for (const line of block.split('\n')) {
		if (line.startsWith(':')) continue;
		const colon = line.indexOf(':');
		const field = colon < 0 ? line : line.slice(0, colon);
		const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
		if (field === 'id') event.id = value;
		else if (field === 'event') event.event = value;
		else if (field === 'data') data.push(value);
	}
	if (data.length === 0) return null;
	event.data = data.join('\n');
	return event;
}

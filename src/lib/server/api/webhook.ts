/**
 * The route of the webhook receiver (contract 5.2): the request goes to the receiver untouched, so the
 * raw body is read before anything parses it.
 */
import { inbox } from '../runtime';

export const receiveWebhook = async ({ request }: { request: Request }): Promise<Response> => inbox().receiver.handle(request);

/**
 * The company's current public key and its fingerprint (contract 2.2) for the agents' trust badges: a
 * verified conversation means the customer's app checked this fingerprint from the invitation link. Public
 * values only; the server never hands out a secret key.
 */
import { b64uEncode, fingerprintDisplay } from '$lib/crypto/index';
import { INBOX_API as API } from '$lib/inbox-api/endpoints';
import { answer, handle, requireSession } from '$lib/server/api/event';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handle(API.getCompany, async (event, inbox) => {
	requireSession(event);
	const { current } = await inbox.companyKeys();
	return answer(API.getCompany, {
		keyVersion: current.keyVersion,
		publicKey: b64uEncode(current.publicKey),
		fingerprint: fingerprintDisplay(current.publicKey)
	});
});

export const fallback = methodNotAllowed;

/**
 * What a hostile or broken service can answer to a proxied `GET /v1/conversations/{id}` (docs/inbox-api.md
 * §6): documents, script and sniffable bytes under many labels. Each tries to run script in the inbox's
 * origin: it sets `document.title` and `window.name` to `pwned`, posts a message to its parent and calls
 * `beacon` back. The proxy must refuse every one of them with `502 INVALID_RESPONSE`; `RELAYED` is JSON
 * (with markup inside a string) and must be relayed, as data. The service announces these conversations
 * first, as it would any other, so that the inbox lets its agents ask about them.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Stack } from '../../src/cli/stack/stack';
import { b64uEncode, generateX25519KeyPair, initCrypto, isoSeconds, sealConversationKey } from '../../src/lib/crypto/index';
import { loadCompanyKeys } from '../../src/lib/server/keys/files';
import type { CannedAnswer, FlakyFront } from './flaky-front';
import { postWebhook } from './webhooks';

export const PWNED = 'pwned';

function script(beacon: string, id: string): string {
	return [
		`document.title='${PWNED}'`,
		`window.name='${PWNED}'`,
		`parent.postMessage('${PWNED}','*')`,
		`fetch('${beacon}/${id}/fetch',{mode:'no-cors'})`,
		`new Image().src='${beacon}/${id}/image'`
	].join(';');
}

function page(beacon: string, id: string): string {
	const run = script(beacon, id);
	return `<!doctype html><html><head><title>inbox</title></head><body><script>${run}</script><img src="x" onerror="${run}"></body></html>`;
}

/** The conversation id whose answer is JSON and must come through. */
export const RELAYED = 'hostile_json_ok';

/** The hostile answers by conversation id. */
export function hostileAnswers(beacon: string): Record<string, CannedAnswer> {
	const html = (id: string) => page(beacon, id);
	return {
		hostile_html: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html('hostile_html') },
		hostile_html_as_text: { status: 200, headers: { 'content-type': 'text/plain' }, body: html('hostile_html_as_text') },
		hostile_html_as_bytes: { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: html('hostile_html_as_bytes') },
		hostile_html_untyped: { status: 200, headers: {}, body: html('hostile_html_untyped') },
		hostile_html_as_json: { status: 200, headers: { 'content-type': 'application/json' }, body: html('hostile_html_as_json') },
		hostile_svg: {
			status: 200,
			headers: { 'content-type': 'image/svg+xml' },
			body: `<svg xmlns="http://www.w3.org/2000/svg" onload="${script(beacon, 'hostile_svg')}"><script>${script(beacon, 'hostile_svg')}</script></svg>`
		},
		hostile_javascript: { status: 200, headers: { 'content-type': 'text/javascript' }, body: script(beacon, 'hostile_javascript') },
		hostile_json_as_html: {
			status: 200,
			headers: { 'content-type': 'text/html' },
			body: JSON.stringify({ conversationId: 'hostile_json_as_html', note: html('hostile_json_as_html') })
		},
		hostile_error_page: { status: 404, headers: { 'content-type': 'text/html' }, body: html('hostile_error_page') },
		[RELAYED]: {
			status: 200,
			headers: { 'content-type': 'application/json; charset=utf-8' },
			body: JSON.stringify({ conversationId: RELAYED, note: html(RELAYED) }, null, 2)
		}
	};
}

/** Makes `front` answer every hostile conversation id itself; returns the answers by id. */
export function serveHostileAnswers(front: FlakyFront, beacon: string): Record<string, CannedAnswer> {
	const answers = hostileAnswers(beacon);
	for (const [id, answer] of Object.entries(answers)) front.answerPath(`/v1/conversations/${id}`, answer);
	return answers;
}

/**
 * Tells the inbox of conversations with these ids, as the service would with a signed
 * `conversation.started` (contract 5.2, 6): the inbox acts only on conversations it knows, so a hostile
 * service announces one before answering for it. Resolves once the inbox has recorded each.
 */
export async function announceConversations(
	stack: Stack,
	ids: readonly string[],
	isKnown: (id: string) => Promise<boolean>
): Promise<void> {
	await initCrypto();
	const keys = await loadCompanyKeys(join(stack.dataDir, 'keys'));
	for (const conversationId of ids) {
		const body = JSON.stringify({
			id: `evt_announce_${conversationId}`,
			type: 'conversation.started',
			createdAt: isoSeconds(new Date()),
			data: {
				conversationId,
				userPublicKey: b64uEncode(generateX25519KeyPair().publicKey),
				conversationKey: sealConversationKey({
					conversationKey: randomBytes(32),
					conversationId,
					keyVersion: keys.current.keyVersion,
					recipientPublicKey: keys.current.publicKey
				}),
				agentWraps: []
			}
		});
		const answer = await postWebhook(`${stack.inbox.url}/webhooks/service`, stack.company.webhookSecret, body);
		if (answer.status !== 200)
			throw new Error(`the inbox refused the announcement of ${conversationId}: ${answer.status} ${await answer.text()}`);
	}
	for (const conversationId of ids) {
		const deadline = Date.now() + 30_000;
		while (!(await isKnown(conversationId))) {
			if (Date.now() > deadline) throw new Error(`the inbox did not record ${conversationId}`);
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	}
}

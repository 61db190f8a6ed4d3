/**
 * The simulator's customer page (`/_sim/app`, the demo's "customer phone") driven by hand in
 * Chromium: open an invitation link, redeem it, write, send a file, read the business's reply and
 * file, mark read, change device and delete the account (contract 4, 6.3, 6.4).
 */
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import {
	b64uDecode,
	buildAttachmentMeta,
	buildInviteLink,
	decryptAttachment,
	decryptMessage,
	encryptAttachment,
	generateInviteSecret,
	openConversationKey,
	parseReceivedAttachmentMeta
} from '../src/lib/crypto/index';
import {
	companyEnvelope,
	registerCompany,
	startTestSimulator,
	V1Client,
	waitFor,
	type TestCompany,
	type TestSimulator
} from '../src/sim/testing/harness';
import { WebhookReceiver } from '../src/sim/testing/receiver';

let simulator: TestSimulator;
let receiver: WebhookReceiver;
let company: TestCompany;
let client: V1Client;

test.beforeAll(async () => {
	simulator = await startTestSimulator();
	receiver = await WebhookReceiver.start();
	company = await registerCompany(simulator, receiver.url);
	client = new V1Client(simulator.url, company);
});

test.afterAll(async () => {
	await simulator?.close();
	await receiver?.close();
});

test('a person redeems, writes, sends a file, reads the reply and its file, changes device and deletes the account', async ({ page }) => {
	const invite = await client.post('/v1/invites', {});
	const inviteSecret = generateInviteSecret();
	const link = buildInviteLink(invite.body.inviteUrl, inviteSecret, company.keys.publicKey);
	const conversationId = invite.body.conversationId as string;

	// The invitation link opens the page with the link filled in; the fragment stays in the browser.
	await page.goto(link);
	await expect(page.locator('#link')).toHaveValue(link);
	await page.getByRole('button', { name: 'Redeem' }).click();
	await expect(page.locator('#status')).toContainText(`Conversation ${conversationId} · active`);
	const started = await waitFor('conversation.started', () => receiver.ofType('conversation.started')[0]);
	const key = openConversationKey(started.event.data.conversationKey, conversationId, company.keyPairs);

	await page.locator('#text').fill('Hello from the phone 👋');
	await page.getByRole('button', { name: 'Send', exact: true }).click();
	const written = await waitFor('message.created', () => receiver.ofType('message.created')[0]);
	expect(decryptMessage(written.event.data.encryption, { conversationKey: key, conversationId, senderType: 'user' })).toBe(
		'Hello from the phone 👋'
	);

	const photo = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) & 255));
	await page.locator('#file').setInputFiles({ name: 'photo.jpg', mimeType: 'image/jpeg', buffer: photo });
	await page.locator('#caption').fill('the broken part');
	await page.getByRole('button', { name: 'Send file' }).click();
	const fileMessage = await waitFor('the file message', () => receiver.ofType('message.created')[1]);
	const metaText = decryptMessage(fileMessage.event.data.encryption, { conversationKey: key, conversationId, senderType: 'user' });
	const meta = parseReceivedAttachmentMeta(metaText, fileMessage.event.data.attachment.attachmentId);
	expect(meta).toMatchObject({ name: 'photo.jpg', mime: 'image/jpeg', caption: 'the broken part', size: photo.length });
	const download = await client.get(`/v1/conversations/${conversationId}/attachments/${meta.attachmentId}`);
	const ciphertext = new Uint8Array(await (await fetch(download.body.downloadUrl)).arrayBuffer());
	expect(Buffer.from(decryptAttachment(ciphertext, meta))).toEqual(photo);

	await client.post('/v1/messages', {
		conversationId,
		contentType: 'text',
		encryption: companyEnvelope(key, conversationId, 'Thanks, <b>we</b> are on it')
	});
	// Text is shown as text, never as HTML.
	await expect(page.locator('.bubble.company').first()).toContainText('Thanks, <b>we</b> are on it');

	const label = Buffer.from('shipping label');
	const upload = await client.post(`/v1/conversations/${conversationId}/attachments`, { size: label.length + 16 });
	const encrypted = encryptAttachment(label, { attachmentId: upload.body.attachmentId });
	await fetch(upload.body.uploadUrl, {
		method: 'PUT',
		headers: upload.body.headers,
		body: encrypted.ciphertext as Uint8Array<ArrayBuffer>
	});
	const labelMeta = buildAttachmentMeta({
		attachmentId: upload.body.attachmentId,
		name: 'label.txt',
		mime: 'text/plain',
		size: label.length,
		encryption: encrypted
	});
	await client.post('/v1/messages', {
		conversationId,
		contentType: 'attachment',
		attachment: { attachmentId: upload.body.attachmentId },
		encryption: companyEnvelope(key, conversationId, JSON.stringify(labelMeta))
	});
	const fileLink = page.getByRole('link', { name: /label\.txt/ });
	await expect(fileLink).toBeVisible();
	const [saved] = await Promise.all([page.waitForEvent('download'), fileLink.click()]);
	expect(saved.suggestedFilename()).toBe('label.txt');
	expect(readFileSync(await saved.path())).toEqual(label);

	await page.getByRole('button', { name: 'Mark read' }).click();
	await waitFor('message.read', () => receiver.ofType('message.read')[0]);

	const reinvite = await client.post(`/v1/conversations/${conversationId}/reinvite`, {});
	await page.locator('#reinvite').fill(buildInviteLink(reinvite.body.inviteUrl, generateInviteSecret(), company.keys.publicKey));
	await page.getByRole('button', { name: 'Change device' }).click();
	await expect(page.locator('#status')).toContainText('awaiting_key');
	await expect(page.locator('.bubble').first()).toContainText('cannot read: CONVERSATION_AWAITING_KEY');
	const restarted = await waitFor('the re-invitation', () => receiver.ofType('conversation.started')[1]);
	expect(b64uDecode(restarted.event.data.userPublicKey)).toHaveLength(32);

	page.once('dialog', (dialog) => dialog.accept());
	await page.getByRole('button', { name: 'Delete account' }).click();
	await expect(page.locator('#status')).toContainText('account deleted');
	const refused = await client.post('/v1/messages', {
		conversationId,
		contentType: 'text',
		encryption: companyEnvelope(key, conversationId, 'hello?')
	});
	expect(refused.body.error.code).toBe('USER_DELETED');
});

test('the page shows why a redemption failed', async ({ page }) => {
	await page.goto(`${simulator.url}/_sim/app`);
	await page.locator('#link').fill('ZZZZ-ZZZZ');
	await page.getByRole('button', { name: 'Redeem' }).click();
	await expect(page.getByRole('alert')).toContainText('NOT_FOUND');
});

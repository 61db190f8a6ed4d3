/**
 * The inbox in Firefox (README.md "Two commands"): Debian's Firefox ESR, driven over WebDriver BiDi, walks an
 * agent's day once — restores her key from its backup file, reads a customer's decrypted messages,
 * replies, receives a photo and sends a file, opens the photo in the viewer and a PDF in its preview,
 * finds a message by a word and jumps to it, and reloads — while the simulated customer checks what
 * arrived. The Chromium tests cover each of these in depth; this one shows they work in another engine.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentKey } from '../src/cli/demo/agent-keys';
import { InboxClient } from '../src/cli/demo/inbox-client';
import { parcelPhoto } from '../src/cli/demo/png';
import { initCrypto } from '../src/lib/crypto/index';
import { launchFirefox, newFirefoxPage, openedTab, textShown, visibleOrExplained, type Page } from './support/firefox';
import { expect, PASSPHRASE, test, type Agent, type InboxStack, type SimCustomer } from './support/inbox-e2e';
import { inkOnCanvas, onePagePdf } from './support/pdf';

const THREAD_MESSAGES = '[data-testid=thread] [data-testid=message]';
const MAIN_NAVIGATION = 'nav[aria-label=Main]';

const attachment = (name: string) => `[data-testid=attachment][data-name="${name}"]`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** An agent whose key was made elsewhere: registered, in the roster, and saved as a backup file in `dir`. */
async function agentWithKeyBackup(inbox: InboxStack, dir: string): Promise<{ agent: Agent; backupPath: string }> {
	const agent = await inbox.createAgent('firefox');
	await initCrypto();
	const key = createAgentKey(PASSPHRASE);
	const backupPath = join(dir, key.backup.fileName);
	writeFileSync(backupPath, key.backup.text);
	const api = await InboxClient.signIn(inbox.url, agent.username, agent.password);
	await api.call('PUT', '/api/agent-key', { agentKeyId: key.agentKeyId, publicKey: key.publicKey });
	await inbox.publishRoster();
	return { agent, backupPath };
}

/** What the customer's phone decrypted of the company's messages: texts, and the files' names with their ids. */
async function fromCompany(customer: SimCustomer): Promise<{ text?: string; name?: string; attachmentId?: string }[]> {
	return (await customer.messages())
		.filter((message) => message.senderType === 'company')
		.map((message) => (message.meta ? { name: message.meta.name, attachmentId: message.meta.attachmentId } : { text: message.text }));
}

/** The SHA-256 of the bytes the page decrypted for the attachment card `card`, read back from its blob. */
async function decryptedSha256(page: Page, card: string): Promise<string> {
	const link = await page.waitForSelector(`${card} [data-testid=save-link]`);
	return link!.evaluate(async (anchor) => {
		const digest = await crypto.subtle.digest('SHA-256', await (await fetch((anchor as HTMLAnchorElement).href)).arrayBuffer());
		return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
	});
}

/** What `read` finds in the tab's frame whose URL starts with `url`; null while there is no such frame. */
async function inFrame<T>(tab: Page, url: string, read: () => T): Promise<Awaited<T> | null> {
	const frame = tab.frames().find((candidate) => candidate.url().startsWith(url));
	return frame ? frame.evaluate(read) : null;
}

/**
 * Clicks the conversation's row until its thread is open: a click that lands while the page still settles
 * (the key gate handing over to the inbox, a row moving up as a message arrives) opens nothing or another
 * row, as a person's would, and they would click again.
 */
async function openConversation(page: Page, conversationId: string): Promise<void> {
	const thread = `[data-testid=thread][data-conversation-id="${conversationId}"]`;
	for (let attempt = 1; ; attempt++) {
		await page.locator(`[data-testid=conversation-list] [data-conversation-id="${conversationId}"]`).click();
		try {
			await page.waitForSelector(thread, { timeout: 10_000 });
			return;
		} catch (error) {
			if (attempt === 3) throw error;
			console.log(`firefox: the click on ${conversationId} opened no thread (attempt ${attempt}), clicking again`);
		}
	}
}

test('Firefox ESR: restore, read, reply, files both ways, viewer, PDF preview, search and reload', async ({ inbox }) => {
	const dir = mkdtempSync(join(tmpdir(), 'inbox-firefox-'));
	const browser = await launchFirefox();
	try {
		const { agent, backupPath } = await agentWithKeyBackup(inbox, dir);
		const lamp = await inbox.customer(await inbox.invite(agent));
		const table = await inbox.customer(await inbox.invite(agent));
		await lamp.say('My lamp arrived with a cracked shade');
		await table.say('Is the walnut table back in stock?');

		// sign in, and restore the key from its backup file: this Firefox has never seen it
		const page = await newFirefoxPage(browser);
		await page.goto(`${inbox.url}/login`);
		await page.locator('#username').fill(agent.username);
		await page.locator('#password').fill(agent.password);
		await page.locator('button[type=submit]').click();
		const backupFile = await page.waitForSelector('[data-testid=key-gate][data-screen=restore] input#backup-file');
		await backupFile!.uploadFile(backupPath);
		await page.locator('#passphrase').fill(PASSPHRASE);
		await page.locator('[data-testid=key-gate] button[type=submit]').click();
		await page.waitForSelector(MAIN_NAVIGATION);

		// the customer's message, decrypted
		await openConversation(page, lamp.conversationId);
		await textShown(page, `${THREAD_MESSAGES}[data-sender=user]`, 'My lamp arrived with a cracked shade');

		// a reply, which the customer decrypts
		const reply = 'Sorry about the shade: a new one is on its way.';
		await page.locator('#composer-text').fill(reply);
		await page.locator('[data-testid=send]').click();
		await expect.poll(() => fromCompany(lamp)).toEqual([{ text: reply }]);

		// the customer's photo: decrypted in the page to the same bytes, and opened in the sandboxed viewer
		const photo = parcelPhoto();
		await lamp.sendFile({ name: 'parcel.png', mime: 'image/png', data: photo, caption: 'This is how it arrived.' });
		await visibleOrExplained(page, `${attachment('parcel.png')} [data-testid=thumbnail]`, THREAD_MESSAGES);
		expect(await decryptedSha256(page, attachment('parcel.png'))).toBe(sha256(photo));
		const viewer = await openedTab(browser, page, `${attachment('parcel.png')} [data-testid=open-attachment]`, /\/viewer#/);
		await viewer.waitForSelector('[data-testid=viewer-frame][sandbox=""][src^="blob:"]');
		await textShown(viewer, 'header strong', 'parcel.png');
		await expect.poll(() => inFrame(viewer, 'blob:', () => document.images[0]?.naturalWidth)).toBe(480);
		await viewer.close();

		// a file from the agent, which the customer decrypts to the same bytes
		const measurements = randomBytes(200_000);
		const measurementsPath = join(dir, 'measurements.bin');
		writeFileSync(measurementsPath, measurements);
		const picker = await page.waitForSelector('input[data-testid=file-input]');
		await picker!.uploadFile(measurementsPath);
		await page.waitForSelector('[data-testid=staged-file][data-name="measurements.bin"]');
		await page.locator('[data-testid=send]').click();
		let sent: string | undefined;
		await expect
			.poll(async () => (sent = (await fromCompany(lamp)).find((message) => message.name === 'measurements.bin')?.attachmentId))
			.toBeDefined();
		expect((await lamp.fileBytes(sent!)).equals(measurements)).toBe(true);

		// a PDF, painted by pdf.js in the viewer's frame
		await lamp.sendFile({ name: 'invoice-42.pdf', mime: 'application/pdf', data: onePagePdf('Invoice 42') });
		const preview = await openedTab(browser, page, `${attachment('invoice-42.pdf')} [data-testid=open-attachment]`, /\/viewer#/);
		await preview.waitForSelector('[data-testid=pdf-status][data-state=rendered]');
		expect(await preview.$eval('[data-testid=pdf-status]', (status) => status.textContent?.trim())).toBe('1 page');
		const darkPixels = await inFrame(preview, `${inbox.url}/pdf-frame.html`, inkOnCanvas);
		expect(darkPixels).toBeGreaterThan(100);
		await preview.close();

		// a word of another conversation's message: Enter opens that conversation at the message
		await page.locator('#conversation-search').fill('walnut');
		await page.waitForSelector(`[data-testid=message-hit][data-conversation-id="${table.conversationId}"]`);
		await page.keyboard.press('Enter');
		await page.waitForSelector(`[data-testid=thread][data-conversation-id="${table.conversationId}"]`);
		await textShown(page, '[data-testid=thread] [data-highlighted=true]', 'Is the walnut table back in stock?');

		// a reload: the key is asked for again unless the page still holds it, and the thread decrypts
		await page.reload();
		await page.waitForSelector(`${MAIN_NAVIGATION}, [data-testid=key-gate][data-screen=unlock]`);
		if (await page.$('[data-testid=key-gate]')) {
			await page.locator('#passphrase').fill(PASSPHRASE);
			await page.locator('[data-testid=key-gate] button[type=submit]').click();
			await page.waitForSelector(MAIN_NAVIGATION);
		}
		await openConversation(page, lamp.conversationId);
		await textShown(page, `${THREAD_MESSAGES}[data-sender=user]`, 'My lamp arrived with a cracked shade');
		await textShown(page, `${THREAD_MESSAGES}[data-sender=company]`, reply);
		expect(await page.$$(`${THREAD_MESSAGES} [data-testid=message-problem]`)).toHaveLength(0);
	} finally {
		await browser.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

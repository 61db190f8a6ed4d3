/**
 * Files (contract 2.6, 4.4; docs/threat-model.md, "A customer"): both ways, encrypted and decrypted in the worker, with the simulated customer
 * checking the bytes; an image opens in a tab through the sandboxed viewer; and an HTML file, an SVG with
 * script and HTML disguised as an image cannot reach the app: a canary they would change stays unchanged;
 * a name with invisible or bidirectional characters shows as it is and saves under its type's extension;
 * the file key F of every file stays in the workers, never in the page's heap or storage.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodePng, parcelPhoto } from '../src/cli/demo/png';
import { expect, messages, openConversation, readyAgent, screenshot, test, type SimCustomer } from './support/inbox-e2e';
import { inkOnCanvas, onePagePdf } from './support/pdf';
import type { Page } from '@playwright/test';

async function conversationWithCustomer(page: Page, inbox: Parameters<typeof readyAgent>[1], label: string): Promise<SimCustomer> {
	const agent = await readyAgent(page, inbox, label);
	const invitation = await inbox.invite(agent);
	const customer = await inbox.customer(invitation);
	await customer.say(`hello from the ${label} customer`);
	await openConversation(page, invitation.conversationId);
	await expect(messages(page).filter({ hasText: `hello from the ${label} customer` })).toBeVisible();
	return customer;
}

async function sentFile(customer: SimCustomer, name: string) {
	let found;
	await expect
		.poll(async () => {
			found = (await customer.messages()).find((m) => m.senderType === 'company' && m.meta?.name === name);
			return found?.meta?.name;
		})
		.toBe(name);
	return found as unknown as { meta: { attachmentId: string; name: string; mime: string; size: number; width?: number; height?: number } };
}

test('files both ways: picked, dropped and received, with the customer checking the bytes', async ({ page, inbox }) => {
	const customer = await conversationWithCustomer(page, inbox, 'files');

	// picked: a binary file of 1.5 MiB
	const binary = randomBytes(1_572_864);
	await page.getByTestId('file-input').setInputFiles({ name: 'measurements.bin', mimeType: 'application/octet-stream', buffer: binary });
	await expect(page.getByTestId('staged-file')).toHaveCount(1);
	await page.getByTestId('send').click();
	await expect(messages(page).filter({ has: page.locator('[data-name="measurements.bin"]') })).toHaveAttribute('data-state', 'sent');
	const picked = await sentFile(customer, 'measurements.bin');
	expect(picked.meta).toMatchObject({ mime: 'application/octet-stream', size: binary.length });
	expect((await customer.fileBytes(picked.meta.attachmentId)).equals(binary)).toBe(true);

	// an image: width and height travel in the meta
	const png = encodePng(64, 48, (x, y) => [x * 4, y * 5, 128]);
	await page.getByTestId('file-input').setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: png });
	await page.getByTestId('send').click();
	await expect(messages(page).filter({ has: page.locator('[data-name="chart.png"]') })).toHaveAttribute('data-state', 'sent');
	const image = await sentFile(customer, 'chart.png');
	expect(image.meta).toMatchObject({ mime: 'image/png', width: 64, height: 48, size: png.length });
	expect((await customer.fileBytes(image.meta.attachmentId)).equals(png)).toBe(true);

	// dropped on the thread
	const dropped = 'dropped, not picked\n'.repeat(100);
	await page.getByTestId('thread').evaluate((thread, text) => {
		const transfer = new DataTransfer();
		transfer.items.add(new File([text], 'notes.txt', { type: 'text/plain' }));
		thread.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
		thread.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
	}, dropped);
	await expect(page.getByTestId('staged-file')).toHaveAttribute('data-name', 'notes.txt');
	await page.getByTestId('send').click();
	await expect(messages(page).filter({ has: page.locator('[data-name="notes.txt"]') })).toHaveAttribute('data-state', 'sent');
	const note = await sentFile(customer, 'notes.txt');
	expect((await customer.fileBytes(note.meta.attachmentId)).toString()).toBe(dropped);

	// too large: refused before anything is uploaded
	await page
		.getByTestId('file-input')
		.setInputFiles({ name: 'huge.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(26_214_401) });
	await expect(page.getByRole('alert').filter({ hasText: 'huge.bin' })).toContainText(
		'at most 25 MiB (26,214,400 bytes); this one has 26,214,401 bytes'
	);
	await expect(page.locator('[data-name="huge.bin"]')).toHaveCount(0);
	await expect(page.getByTestId('attachment-tray')).toHaveCount(0);

	// received: the customer's file, decrypted in the worker and saved
	const report = randomBytes(300_000);
	await customer.sendFile({ name: 'report.bin', mime: 'application/octet-stream', data: report, caption: 'the report you asked for' });
	const received = page.locator('[data-testid=attachment][data-name="report.bin"]');
	await expect(received).toContainText('293 KiB');
	await expect(messages(page).filter({ hasText: 'the report you asked for' })).toHaveAttribute('data-sender', 'user');
	const [download] = await Promise.all([page.waitForEvent('download'), received.getByTestId('download-attachment').click()]);
	expect(download.suggestedFilename()).toBe('report.bin');
	expect((await readFile(await download.path())).equals(report)).toBe(true);
	await screenshot(page, 'files');

	// F of every file, sent or received, stayed in the workers: the page's heap and storage hold none.
	const fileKeys = (await customer.messages()).flatMap((m) => (m.fileKey ? [m.fileKey] : []));
	expect(fileKeys).toHaveLength(4);
	const probe = randomBytes(32).toString('base64url');
	await page.evaluate((value) => ((window as unknown as { heldByThePage: string }).heldByThePage = value), probe);
	const pageStrings = await pageHeapText(page);
	expect(pageStrings).toContain(probe);
	for (const key of fileKeys) expect(pageStrings).not.toContain(key);
	const storage = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
	for (const key of fileKeys) expect(storage).not.toContain(key);
});

/** A heap snapshot of the page's main thread (not its workers), as text. */
async function pageHeapText(page: Page): Promise<string> {
	const session = await page.context().newCDPSession(page);
	const chunks: string[] = [];
	session.on('HeapProfiler.addHeapSnapshotChunk', (event) => chunks.push(event.chunk));
	await session.send('HeapProfiler.enable');
	await session.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
	await session.detach();
	return chunks.join('');
}

test('files wait in a tray: captions, removal, and sent in the tray order whatever their size', async ({ page, inbox }) => {
	const customer = await conversationWithCustomer(page, inbox, 'tray');
	const big = randomBytes(6_000_000);
	const png = encodePng(32, 32, () => [20, 120, 220]);
	await page.getByTestId('file-input').setInputFiles([
		{ name: 'first-big.bin', mimeType: 'application/octet-stream', buffer: big },
		{ name: 'second.png', mimeType: 'image/png', buffer: png },
		{ name: 'not-this-one.txt', mimeType: 'text/plain', buffer: Buffer.from('oops') }
	]);
	await page.getByTestId('file-input').setInputFiles({ name: 'third.txt', mimeType: 'text/plain', buffer: Buffer.from('small and last') });
	const tray = page.getByTestId('staged-file');
	await expect(tray).toHaveCount(4);
	await expect(tray.filter({ has: page.locator('img') })).toHaveAttribute('data-name', 'second.png');
	await tray.filter({ hasText: 'not-this-one.txt' }).getByTestId('unstage').click();
	await expect(tray).toHaveCount(3);
	await tray.filter({ hasText: 'second.png' }).getByTestId('staged-caption').fill('The colour we have in stock');
	// nothing leaves before Send
	expect((await customer.messages()).filter((m) => m.senderType === 'company')).toHaveLength(0);
	await screenshot(page, 'attachment-tray');

	await page.getByLabel('Message').fill('Here are the files.');
	await page.getByTestId('send').click();
	await expect(page.getByTestId('attachment-tray')).toHaveCount(0);
	for (const name of ['first-big.bin', 'second.png', 'third.txt'])
		await expect(messages(page).filter({ has: page.locator(`[data-name="${name}"]`) })).toHaveAttribute('data-state', 'sent');
	await expect
		.poll(async () => (await customer.messages()).filter((m) => m.senderType === 'company').map((m) => m.meta?.name ?? m.text))
		.toEqual(['Here are the files.', 'first-big.bin', 'second.png', 'third.txt']);
	expect((await customer.messages()).find((m) => m.meta?.name === 'second.png')?.meta?.caption).toBe('The colour we have in stock');
	expect((await customer.messages()).some((m) => m.meta?.name === 'not-this-one.txt')).toBe(false);
	const shown = await messages(page).evaluateAll((bubbles) =>
		bubbles.map((bubble) => bubble.querySelector('[data-testid=attachment]')?.getAttribute('data-name') ?? null).filter(Boolean)
	);
	expect(shown).toEqual(['first-big.bin', 'second.png', 'third.txt']);
});

test('an image opens in a tab, through the sandboxed viewer', async ({ page, inbox, context }) => {
	const customer = await conversationWithCustomer(page, inbox, 'image');
	await customer.sendFile({ name: 'parcel.png', mime: 'image/png', data: parcelPhoto(), caption: 'This is how it arrived.' });
	const card = page.locator('[data-testid=attachment][data-name="parcel.png"]');
	await expect(card.getByTestId('thumbnail')).toBeVisible();
	await expect.poll(() => card.getByTestId('thumbnail').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(480);

	const [viewer] = await Promise.all([context.waitForEvent('page'), card.getByTestId('open-attachment').click()]);
	await viewer.waitForURL(/\/viewer#/);
	const frame = viewer.getByTestId('viewer-frame');
	await expect(frame).toHaveAttribute('sandbox', '');
	await expect(frame).toHaveAttribute('src', /^blob:http:\/\/127\.0\.0\.1:\d+\//);
	await expect(viewer.getByText('parcel.png')).toBeVisible();
	await expect.poll(() => viewer.frames().some((f) => f.url().startsWith('blob:'))).toBe(true);
	await screenshot(viewer, 'viewer');
});

test('a PDF opens in the viewer, painted by pdf.js in a frame that has no origin; its script never runs', async ({
	page,
	inbox,
	context
}) => {
	const hits: string[] = [];
	const beacon: Server = createServer((request, response) => {
		hits.push(request.url ?? '');
		response.writeHead(204, { 'access-control-allow-origin': '*' }).end();
	});
	await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
	const port = (beacon.address() as AddressInfo).port;
	try {
		const customer = await conversationWithCustomer(page, inbox, 'pdf');
		const script = `app.alert('ran'); this.submitForm('http://127.0.0.1:${port}/submit'); app.launchURL('http://127.0.0.1:${port}/launch');`;
		await customer.sendFile({ name: 'invoice-42.pdf', mime: 'application/pdf', data: onePagePdf('Invoice 42', script) });
		const card = page.locator('[data-testid=attachment][data-name="invoice-42.pdf"]');
		// a PDF opens, so the "never opened" warning is not shown for it
		await expect(card.getByTestId('open-attachment')).toBeVisible();
		await expect(card).not.toContainText('never opened');

		const [viewer] = await Promise.all([context.waitForEvent('page'), card.getByTestId('open-attachment').click()]);
		const dialogs: string[] = [];
		viewer.on('dialog', (dialog) => {
			dialogs.push(dialog.message());
			void dialog.dismiss();
		});
		await viewer.waitForURL(/\/viewer#/);
		await expect(viewer.getByTestId('pdf-frame')).toHaveAttribute('sandbox', 'allow-scripts');
		await expect(viewer.getByTestId('pdf-status')).toHaveAttribute('data-state', 'rendered');
		await expect(viewer.getByTestId('pdf-status')).toHaveText('1 page');
		const pdfFrame = viewer.frames().find((frame) => frame.url().endsWith('/pdf-frame.html'));
		expect(pdfFrame).toBeDefined();
		// painted: the canvas has ink on it
		const inked = await pdfFrame!.evaluate(inkOnCanvas);
		expect(inked).toBeGreaterThan(100);
		// the frame has no origin: none of the inbox's storage or cookies is reachable from it
		expect(
			await pdfFrame!.evaluate(() => {
				const reach = (read: () => unknown) => {
					try {
						read();
						return 'reachable';
					} catch {
						return 'blocked';
					}
				};
				return {
					origin,
					storage: reach(() => localStorage.length),
					cookie: reach(() => document.cookie),
					parent: reach(() => parent.document.title)
				};
			})
		).toEqual({ origin: 'null', storage: 'blocked', cookie: 'blocked', parent: 'blocked' });
		await viewer.waitForTimeout(500);
		expect(hits).toEqual([]);
		expect(dialogs).toEqual([]);
		await screenshot(viewer, 'viewer-pdf');
	} finally {
		await new Promise((resolve) => beacon.close(resolve));
	}
});

test('a file name with a right-to-left override shows as it is, and saves under its type’s extension', async ({ page, inbox }) => {
	const customer = await conversationWithCustomer(page, inbox, 'bidi');
	// Rendered as is, this name reads "invoiceexe.png".
	await customer.sendFile({ name: 'invoice\u202Egnp.exe', mime: 'image/png', data: parcelPhoto() });
	const card = page.locator('[data-testid=attachment][data-mime="image/png"]');
	await expect(card).toHaveAttribute('data-name', 'invoicegnp.exe');
	await expect(card.locator('.name')).toHaveText('invoicegnp.exe');
	const [download] = await Promise.all([page.waitForEvent('download'), card.getByTestId('download-attachment').click()]);
	expect(download.suggestedFilename()).toBe('invoicegnp.exe.png');
});

test('an HTML file, an SVG with script and HTML disguised as an image cannot reach the app', async ({ page, inbox, context }) => {
	// anything the files' script manages to run reports here
	const hits: string[] = [];
	const controls = new Map<string, { type: string; body: string }>();
	const beacon: Server = createServer((request, response) => {
		const control = controls.get(request.url ?? '');
		if (control) return response.writeHead(200, { 'content-type': control.type }).end(control.body);
		if (request.url !== '/favicon.ico') hits.push(request.url ?? '');
		response.writeHead(204, { 'access-control-allow-origin': '*' }).end();
	});
	await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
	const port = (beacon.address() as AddressInfo).port;
	const attack = (tag: string) =>
		[
			`document.documentElement.dataset.ran='${tag}';`,
			`try{parent.document.documentElement.dataset.canary='${tag}'}catch(e){}`,
			`try{top.localStorage.setItem('canary','${tag}')}catch(e){}`,
			`try{localStorage.setItem('canary','${tag}')}catch(e){}`,
			`try{document.cookie='canary=${tag};path=/'}catch(e){}`,
			`try{indexedDB.deleteDatabase('canary')}catch(e){}`,
			`fetch('http://127.0.0.1:${port}/${tag}',{mode:'no-cors'}).catch(function(){});`
		].join('');

	try {
		const customer = await conversationWithCustomer(page, inbox, 'canary');
		// the canary: in the page, its storage, its cookies and its IndexedDB
		await page.evaluate(async () => {
			document.documentElement.dataset.canary = 'intact';
			localStorage.setItem('canary', 'intact');
			document.cookie = 'canary=intact; path=/';
			await new Promise<void>((resolve, reject) => {
				const request = indexedDB.open('canary', 1);
				request.onupgradeneeded = () => request.result.createObjectStore('canary').put('intact', 'value');
				request.onsuccess = () => {
					request.result.close();
					resolve();
				};
				request.onerror = () => reject(request.error);
			});
		});

		const html = `<!doctype html><title>invoice</title><script>${attack('html')}</script><p>invoice</p>`;
		const svg = `<svg xmlns="http://www.w3.org/2000/svg" onload="${attack('svg-onload').replaceAll('"', '&quot;')}"><script>${attack('svg')}</script><circle r="5"/></svg>`;

		// positive control: served from a site of their own (localhost, so not even cookies are shared), the same files do run and report
		controls.set('/control.html', { type: 'text/html', body: html });
		controls.set('/control.svg', { type: 'image/svg+xml', body: svg });
		const control = await context.newPage();
		for (const path of ['/control.html', '/control.svg']) await control.goto(`http://localhost:${port}${path}`);
		await expect.poll(() => [...hits].sort()).toEqual(['/html', '/svg', '/svg-onload']);
		await control.close();
		hits.length = 0;
		const disguised = `<html><body><img src=x onerror="${attack('disguised').replaceAll('"', '&quot;')}"><script>${attack('disguised')}</script></body></html>`;
		await customer.sendFile({ name: 'invoice.html', mime: 'text/html', data: Buffer.from(html) });
		await customer.sendFile({ name: 'logo.svg', mime: 'image/svg+xml', data: Buffer.from(svg) });
		await customer.sendFile({ name: 'photo.png', mime: 'image/png', data: Buffer.from(disguised) });

		// HTML and SVG: download only, never opened
		for (const [name, content] of [
			['invoice.html', html],
			['logo.svg', svg]
		]) {
			const card = page.locator(`[data-testid=attachment][data-name="${name}"]`);
			await expect(card).toContainText('never opened in the browser');
			await expect(card.getByTestId('open-attachment')).toHaveCount(0);
			const [download] = await Promise.all([page.waitForEvent('download'), card.getByTestId('download-attachment').click()]);
			expect(await readFile(await download.path(), 'utf8')).toBe(content);
			// even asked directly, the viewer refuses the type
			const href = await card.getByTestId('save-link').getAttribute('href');
			const forced = await context.newPage();
			await forced.goto(
				`/viewer#${new URLSearchParams({ src: href as string, name, mime: name.endsWith('.svg') ? 'image/svg+xml' : 'text/html' })}`
			);
			await expect(forced.getByTestId('viewer-refused')).toBeVisible();
			await expect(forced.getByTestId('viewer-frame')).toHaveCount(0);
			await forced.close();
		}
		await screenshot(page, 'unsafe-files');

		// HTML labelled image/png: no picture; opened, it stays inert inside the sandbox
		const photo = page.locator('[data-testid=attachment][data-name="photo.png"]');
		await expect(photo.getByTestId('not-an-image')).toBeVisible();
		await expect(photo.getByTestId('thumbnail')).toHaveCount(0);
		const [viewer] = await Promise.all([context.waitForEvent('page'), photo.getByTestId('open-attachment').click()]);
		await expect(viewer.getByTestId('viewer-frame')).toHaveAttribute('sandbox', '');
		await expect.poll(() => viewer.frames().some((f) => f.url().startsWith('blob:'))).toBe(true);
		await viewer.waitForTimeout(500);
		expect(await viewer.evaluate(() => [document.documentElement.dataset.ran ?? null, localStorage.getItem('canary')])).toEqual([
			null,
			'intact'
		]);
		await viewer.close();

		// defence in depth: even a blob of this origin that really is HTML, framed under an allowed type, runs nothing
		const crafted = await page.evaluate((content) => URL.createObjectURL(new Blob([content], { type: 'text/html' })), html);
		const sandboxed = await context.newPage();
		await sandboxed.goto(`/viewer#${new URLSearchParams({ src: crafted, name: 'notes.txt', mime: 'text/plain' })}`);
		await expect(sandboxed.getByTestId('viewer-frame')).toHaveAttribute('src', crafted);
		await expect.poll(() => sandboxed.frames().some((f) => f.url() === crafted)).toBe(true);
		await sandboxed.waitForTimeout(500);
		await sandboxed.close();

		// the canary is untouched, and no script ever reported
		await page.waitForTimeout(500);
		const canary = await page.evaluate(async () => ({
			page: document.documentElement.dataset.canary,
			ran: document.documentElement.dataset.ran ?? null,
			storage: localStorage.getItem('canary'),
			cookie: document.cookie.split('; ').find((entry) => entry.startsWith('canary=')),
			indexedDB: await new Promise((resolve) => {
				const request = indexedDB.open('canary');
				request.onsuccess = () => {
					const database = request.result;
					if (!database.objectStoreNames.contains('canary')) return resolve('deleted');
					const get = database.transaction('canary').objectStore('canary').get('value');
					get.onsuccess = () => {
						database.close();
						resolve(get.result);
					};
				};
			})
		}));
		expect(canary).toEqual({ page: 'intact', ran: null, storage: 'intact', cookie: 'canary=intact', indexedDB: 'intact' });
		expect(hits).toEqual([]);
	} finally {
		await new Promise((resolve) => beacon.close(resolve));
	}
});

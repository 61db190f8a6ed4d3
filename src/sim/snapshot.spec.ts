import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
	companyEnvelope,
	openCompanyKey,
	registerCompany,
	startConversation,
	startTestSimulator,
	V1Client,
	waitFor
} from './testing/harness';
import { WebhookReceiver } from './testing/receiver';
import { addAttachment, addCompany, addConversation, addMessage, contentsOf } from './testing/records';
import { SimPersistence } from './persistence';
import { startSimulator } from './server';
import { newStore, writeSnapshotFile } from './snapshot';
import type { Store } from './state';

const receivers: WebhookReceiver[] = [];
afterAll(async () => {
	for (const receiver of receivers) await receiver.close();
});

/** The whole state as the simulator wrote it before the change log: version 2 without the generation. */
async function writeVersionOneSnapshot(file: string, store: Store): Promise<void> {
	await writeSnapshotFile(file, store, 0);
	const { generation, ...versionOne } = JSON.parse(readFileSync(file, 'utf8'));
	expect(generation).toBe(0);
	writeFileSync(file, JSON.stringify({ ...versionOne, version: 1 }));
}

describe('DATA_DIR/sim.json', () => {
	it('loads a version 1 snapshot of an earlier run, then continues it as a version 2 snapshot and its change log', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'sim-snapshot-'));
		const earlier = newStore();
		const conversation = addConversation(earlier, addCompany(earlier, 'cmp_earlier'));
		addMessage(earlier, conversation, 'user');
		addMessage(earlier, conversation, 'company');
		const attached = addAttachment(earlier, conversation);
		await writeVersionOneSnapshot(join(dataDir, 'sim.json'), earlier);
		mkdirSync(join(dataDir, 'sim-objects'));
		const attachmentId = attached.attachment!.attachmentId;
		writeFileSync(join(dataDir, 'sim-objects', attachmentId), earlier.objects.get(attachmentId)!);

		const persistence = new SimPersistence(dataDir);
		const store = await persistence.load();
		expect(contentsOf(store)).toEqual(contentsOf(earlier));
		addMessage(store, store.conversations.get(conversation.conversationId)!, 'user');
		await persistence.close();
		expect(JSON.parse(readFileSync(join(dataDir, 'sim.json'), 'utf8'))).toMatchObject({ version: 2, generation: 1 });
		expect(contentsOf(await new SimPersistence(dataDir).load())).toEqual(contentsOf(store));
	});

	it('keeps companies, conversations, messages, attachments, idempotency keys, customers and pending deliveries across a restart', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'sim-snapshot-'));
		const receiver = await WebhookReceiver.start();
		receivers.push(receiver);
		const first = await startTestSimulator({ dataDir });
		const company = await registerCompany(first, receiver.url);
		let client = new V1Client(first.url, company);
		const conversation = await startConversation(first, client, company);
		const key = await openCompanyKey(client, company, conversation.conversationId);
		const send = {
			conversationId: conversation.conversationId,
			contentType: 'text',
			encryption: companyEnvelope(key, conversation.conversationId, 'kept')
		};
		const reply = await client.post('/v1/messages', send, { idempotencyKey: 'before-restart' });
		await first.control('POST', `/_sim/customers/${conversation.customerId}/attachments`, {
			name: 'a.txt',
			mime: 'text/plain',
			dataBase64: Buffer.from('attached before the restart').toString('base64')
		});
		await waitFor('two webhooks', () => receiver.received.length === 2);
		receiver.defaultStatus = 503;
		await first.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'undelivered' });
		await waitFor('the failed attempt', () => receiver.received.length === 3);
		await first.sim.webhooksIdle();
		await first.close();
		expect(statSync(join(dataDir, 'sim.json')).mode & 0o777).toBe(0o600);

		receiver.defaultStatus = 200;
		const second = await startTestSimulator({ dataDir });
		try {
			client = new V1Client(second.url, company);
			const record = await client.get(`/v1/conversations/${conversation.conversationId}`);
			expect(record.body.status).toBe('active');
			const replayed = await client.post('/v1/messages', send, { idempotencyKey: 'before-restart' });
			expect(replayed.headers.get('idempotent-replayed')).toBe('true');
			expect(replayed.body).toEqual(reply.body);

			const messages = await second.control('GET', `/_sim/customers/${conversation.customerId}/messages`);
			expect(messages.body.map((message: { text?: string; meta?: { name: string } }) => message.text ?? message.meta?.name)).toEqual([
				'kept',
				'a.txt',
				'undelivered'
			]);
			const attachmentId = messages.body[1].meta.attachmentId;
			const bytes = await fetch(`${second.url}/_sim/customers/${conversation.customerId}/attachments/${attachmentId}`);
			expect(await bytes.text()).toBe('attached before the restart');
			const download = await client.get(`/v1/conversations/${conversation.conversationId}/attachments/${attachmentId}`);
			expect((await fetch(download.body.downloadUrl)).status).toBe(200);

			await second.control('POST', '/_sim/clock', { advanceSeconds: 10 });
			await waitFor('the retried delivery', () => receiver.received.length === 4);
			expect(receiver.received[3].event.id).toBe(receiver.received[2].event.id);
			expect(receiver.received[3].headers['x-service-attempt']).toBe('2');
		} finally {
			await second.close();
		}
	});

	it('refuses to start on a damaged snapshot instead of starting afresh', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'sim-snapshot-'));
		writeFileSync(join(dataDir, 'sim.json'), '{"format":"service-simulator-snapshot",');
		await expect(startSimulator({ dataDir })).rejects.toThrow(/not a readable simulator snapshot/);
		expect(readFileSync(join(dataDir, 'sim.json'), 'utf8')).toBe('{"format":"service-simulator-snapshot",');
	});
});

import { mkdtempSync } from 'node:fs';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../log';
import { WEBHOOK_SECRET_FILE, WebhookSecrets } from './webhook-secrets';

const log: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const secret = (fill: number) => `whsec_${Buffer.alloc(32, fill).toString('base64url')}`;
const [OLD, NEW, NEWER, OPERATOR] = [secret(1), secret(2), secret(3), secret(4)];

describe('webhook secrets across a rotation (contract 5.1 rule 4, 8)', () => {
	it('accepts the environment’s previous secret only until the end of the overlap the operator set (contract 5.2)', async () => {
		let now = Date.parse('2026-11-24T10:00:00Z');
		const secrets = await WebhookSecrets.load(
			{ current: NEW, previous: OLD, previousUntil: new Date('2026-11-24T12:00:00Z') },
			mkdtempSync(join(tmpdir(), 'whsec-')),
			{ now: () => now, log }
		);
		expect(secrets.accepted()).toEqual([NEW, OLD]);
		now = Date.parse('2026-11-24T12:00:00Z');
		expect(secrets.accepted()).toEqual([NEW]);
	});

	it('signs with the new secret, accepts both until previousValidUntil, and keeps them across a restart (file mode 0600)', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'whsec-'));
		let now = Date.parse('2026-11-22T10:00:00Z');
		const secrets = await WebhookSecrets.load({ current: OLD, previous: null }, dir, { now: () => now, log });
		expect([secrets.signing(), secrets.accepted()]).toEqual([OLD, [OLD]]);
		const result = await secrets.rotate(async () => ({ webhookSecret: NEW, previousValidUntil: '2026-11-23T10:00:00Z' }));
		expect(result).toEqual({ rotatedAt: '2026-11-22T10:00:00Z', previousValidUntil: '2026-11-23T10:00:00Z' });
		expect([secrets.signing(), secrets.accepted()]).toEqual([NEW, [NEW, OLD]]);
		expect((await stat(join(dir, WEBHOOK_SECRET_FILE))).mode & 0o777).toBe(0o600);

		const restarted = await WebhookSecrets.load({ current: OLD, previous: null }, dir, { now: () => now, log });
		expect([restarted.signing(), restarted.accepted(), restarted.previousValidUntil()]).toEqual([NEW, [NEW, OLD], '2026-11-23T10:00:00Z']);
		now = Date.parse('2026-11-23T10:00:01Z');
		expect([restarted.accepted(), restarted.previousValidUntil()]).toEqual([[NEW], null]);
	});

	it('another process learns a rotation when a signature fails, and a webhook waits for a rotation being saved', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'whsec-'));
		const options = { now: () => Date.parse('2026-11-22T10:00:00Z'), log };
		const first = await WebhookSecrets.load({ current: OLD, previous: null }, dir, options);
		const second = await WebhookSecrets.load({ current: OLD, previous: null }, dir, options);
		let portalAnswers!: () => void;
		const rotating = first.rotate(
			() => new Promise((resolve) => (portalAnswers = () => resolve({ webhookSecret: NEW, previousValidUntil: '2026-11-23T10:00:00Z' })))
		);
		const refreshed = first.refresh();
		portalAnswers();
		expect(await refreshed).toBe(true);
		await rotating;
		expect(await second.refresh()).toBe(true);
		expect(second.accepted()).toEqual([NEW, OLD]);
		expect(await second.refresh()).toBe(false);
		await first.rotate(async () => ({ webhookSecret: NEWER, previousValidUntil: '2026-11-23T11:00:00Z' }));
		expect(JSON.parse(await readFile(join(dir, WEBHOOK_SECRET_FILE), 'utf8'))).toMatchObject({ current: NEWER, previous: NEW });
	});

	it("an operator's new SERVICE_WEBHOOK_SECRET wins over the file", async () => {
		const dir = mkdtempSync(join(tmpdir(), 'whsec-'));
		const options = { now: () => Date.parse('2026-11-22T10:00:00Z'), log };
		await (
			await WebhookSecrets.load({ current: OLD, previous: null }, dir, options)
		).rotate(async () => ({
			webhookSecret: NEW,
			previousValidUntil: '2026-11-23T10:00:00Z'
		}));
		const replaced = await WebhookSecrets.load({ current: OPERATOR, previous: NEW }, dir, options);
		expect([replaced.signing(), replaced.accepted()]).toEqual([OPERATOR, [OPERATOR, NEW]]);
		await writeFile(join(dir, WEBHOOK_SECRET_FILE), 'not json', { mode: 0o600 });
		expect((await WebhookSecrets.load({ current: OLD, previous: null }, dir, options)).signing()).toBe(OLD);
	});

	it('tells the operator what it ignores: a file others can read, a file it cannot parse, an operator secret newer than the file', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'whsec-'));
		const lines: string[] = [];
		const recording: Logger = { info: () => {}, warn: (message) => lines.push(message), error: () => {} };
		const options = { now: () => Date.parse('2026-11-22T10:00:00Z'), log: recording };
		const first = await WebhookSecrets.load({ current: OLD, previous: null }, dir, options);
		await first.rotate(async () => ({ webhookSecret: NEW, previousValidUntil: '2026-11-22T10:00:00Z' }));
		// The overlap ends exactly now: the previous secret is no longer accepted.
		expect([first.accepted(), first.previousValidUntil()]).toEqual([[NEW], null]);
		expect(lines).toEqual([]);

		const path = join(dir, WEBHOOK_SECRET_FILE);
		await chmod(path, 0o644);
		const readable = await WebhookSecrets.load({ current: OLD, previous: null }, dir, options);
		expect(readable.signing()).toBe(NEW);
		expect(lines).toEqual([`${path} is readable by group or others; run: chmod 600 ${path}`]);

		await WebhookSecrets.load({ current: OPERATOR, previous: null }, dir, options);
		expect(lines.at(-1)).toBe(`SERVICE_WEBHOOK_SECRET is newer than ${WEBHOOK_SECRET_FILE}: the environment's secret is used`);

		await writeFile(path, '{ torn', { mode: 0o600 });
		expect(await readable.refresh()).toBe(false);
		expect(readable.signing()).toBe(NEW);
		expect(lines.at(-1)).toBe('the rotated webhook secret cannot be read; the environment secret stays in use');
		expect(await readable.refresh()).toBe(false);
		expect(lines.filter((line) => line.startsWith('the rotated webhook secret cannot be read'))).toHaveLength(1);
	});
});

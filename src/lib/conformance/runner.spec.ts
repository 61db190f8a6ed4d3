import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeHmacSha256 } from '../server/hmac';
import { coreImplementation } from './implementation';
import { conformanceCases, runCase, runConformance, VectorFileError } from './runner';

const file = JSON.parse(readFileSync(new URL('../../../vectors/conformance.json', import.meta.url), 'utf8'));
const core = coreImplementation();

describe('public conformance vectors against the crypto core', () => {
	const cases = conformanceCases(file);

	it('holds the 82 crypto cases and 17 HMAC cases of contract 9.1', () => {
		expect(cases.filter((c) => !c.group.startsWith('hmac.'))).toHaveLength(82);
		expect(cases.filter((c) => c.group.startsWith('hmac.'))).toHaveLength(17);
	});

	for (const testCase of cases) {
		it(`${testCase.group}: ${testCase.name}`, async () => {
			const result = await runCase(testCase, core);
			expect(result.ok, result.detail).toBe(true);
		});
	}
});

describe("public HMAC vectors against the server's node:crypto HMAC", () => {
	const serverImplementation = coreImplementation(nodeHmacSha256);
	for (const testCase of conformanceCases(file).filter((c) => c.group.startsWith('hmac.'))) {
		it(`${testCase.group}: ${testCase.name}`, async () => {
			const result = await runCase(testCase, serverImplementation);
			expect(result.ok, result.detail).toBe(true);
		});
	}
});

describe('the runner reports altered expectations as failures', () => {
	const altered = (edit: (copy: typeof file) => void) => {
		const copy = structuredClone(file);
		edit(copy);
		return copy;
	};
	const failuresOf = async (content: unknown) => (await runConformance('altered', content, core)).results.filter((r) => !r.ok);

	it('a changed ciphertext', async () => {
		const failures = await failuresOf(
			altered((copy) => {
				const envelope = copy.groups.messages[0].envelope;
				envelope.ciphertext = (envelope.ciphertext[0] === 'A' ? 'B' : 'A') + envelope.ciphertext.slice(1);
			})
		);
		expect(failures.map((f) => f.name)).toEqual([file.groups.messages[0].name]);
	});

	it('a wrong error code', async () => {
		const failures = await failuresOf(
			altered((copy) => {
				copy.groups.negativeMessages[0].error = 'DECRYPT_FAILED';
			})
		);
		expect(failures).toHaveLength(1);
		expect(failures[0].detail).toMatch(/expected DECRYPT_FAILED, got UNSUPPORTED_VERSION/);
	});

	it('a valid case marked invalid', async () => {
		const failures = await failuresOf(
			altered((copy) => {
				copy.groups.wraps[0].error = 'KEY_MISMATCH';
			})
		);
		expect(failures).toHaveLength(1);
		expect(failures[0].detail).toMatch(/expected KEY_MISMATCH, but it succeeded/);
	});

	it('a changed HMAC header', async () => {
		const failures = await failuresOf(
			altered((copy) => {
				copy.hmac.requests[0].header = copy.hmac.requests[0].header.replace(/.$/, (c: string) => (c === '0' ? '1' : '0'));
			})
		);
		expect(failures.map((f) => f.group)).toEqual(['hmac.requests']);
	});

	it('an unknown group or mutation makes the file unusable', () => {
		expect(() => conformanceCases(altered((copy) => (copy.groups.newGroup = [])))).toThrow(VectorFileError);
		expect(() =>
			conformanceCases(
				altered((copy) => {
					copy.groups.derivedAttachments[0].mutation = { op: 'reverse' };
				})
			)
		).toThrow(/unknown mutation/);
	});
});

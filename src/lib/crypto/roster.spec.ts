import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode } from './encoding';
import { generateEd25519KeyPair, generateX25519KeyPair } from './keys';
import { rosterStatement, signRoster, verifyRoster } from './roster';
import { isoSeconds, requireIssuedAt } from './rules';
import { initCrypto } from './sodium';
import { codeOfCall } from '$test-support/error-codes';

beforeAll(() => initCrypto());

const agent = (n: number) => ({
	agentKeyId: `agk_agent${String(n).padStart(6, '0')}`,
	publicKey: b64uEncode(generateX25519KeyPair().publicKey)
});
const roster = (agents = [agent(1), agent(2)]) => ({ companyId: 'cmp_test', rosterVersion: 2, issuedAt: '2026-11-22T10:00:00Z', agents });

describe('agent roster (contract 2.9, 6.7)', () => {
	it('an empty roster is valid and its statement ends in |', () => {
		expect(rosterStatement(roster([]))).toBe('Service|v1|agent-roster|cmp_test|2|2026-11-22T10:00:00Z|');
	});

	it('sorts agents by id bytes, uppercase before lowercase', () => {
		const key = b64uEncode(generateX25519KeyPair().publicKey);
		const other = b64uEncode(generateX25519KeyPair().publicKey);
		const statement = rosterStatement(
			roster([
				{ agentKeyId: 'agk_bbbbbbbb', publicKey: key },
				{ agentKeyId: 'agk_BBBBBBBB', publicKey: other }
			])
		);
		expect(statement.endsWith(`|agk_BBBBBBBB:${other},agk_bbbbbbbb:${key}`)).toBe(true);
	});

	it('lists any agents in byte order of their ids, whatever order they came in', () => {
		fc.assert(
			fc.property(fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{8}$/), { minLength: 2, maxLength: 12 }), (suffixes) => {
				const agents = suffixes.map((suffix) => ({
					agentKeyId: `agk_${suffix}`,
					publicKey: b64uEncode(generateX25519KeyPair().publicKey)
				}));
				const listed = rosterStatement(roster(agents))
					.split('|')
					.at(-1)!
					.split(',')
					.map((entry) => entry.split(':')[0]);
				expect(listed).toEqual(agents.map((a) => a.agentKeyId).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
			})
		);
	});

	it('refuses a repeated id or key and an agents field that is no list, naming what is wrong', () => {
		const one = agent(1);
		expect(() => rosterStatement(roster([one, { ...agent(2), agentKeyId: one.agentKeyId }]))).toThrow(
			`agentKeyId ${one.agentKeyId} appears twice`
		);
		const twin = { ...agent(2), publicKey: one.publicKey };
		expect(() => rosterStatement(roster([one, twin]))).toThrow(`the public key of ${twin.agentKeyId} appears twice`);
		expect(() => rosterStatement({ ...roster(), agents: 'agk_x' as never })).toThrow('agents must be a list');
		expect(codeOfCall(() => rosterStatement({ ...roster(), agents: [null] as never }))).toBe('INVALID_INPUT');
		expect(() => rosterStatement({ ...roster(), agents: [{ agentKeyId: one.agentKeyId, publicKey: 'AAAA' }] })).toThrow(
			`publicKey of ${one.agentKeyId} must be 32 bytes, got 3`
		);
		expect(() => rosterStatement({ ...roster(), companyId: 'bad id' })).toThrow(/^companyId /);
		expect(() => rosterStatement({ ...roster(), rosterVersion: 0 })).toThrow(/^rosterVersion /);
		const thousandAndOne = Array.from({ length: 1001 }, (_, i) => agent(i));
		expect(() => rosterStatement(roster(thousandAndOne))).toThrow('a roster holds at most 1000 agents');
	});

	it('allows 1000 agents and refuses 1001', () => {
		const thousand = Array.from({ length: 1000 }, (_, i) => agent(i));
		expect(() => rosterStatement(roster(thousand))).not.toThrow();
		expect(codeOfCall(() => rosterStatement(roster([...thousand, agent(1000)])))).toBe('INVALID_INPUT');
	});

	it('signs and verifies; a changed field is SIGNATURE_INVALID', () => {
		const signing = generateEd25519KeyPair();
		const unsigned = roster();
		const signed = { ...unsigned, signature: signRoster(unsigned, signing.secretKey) };
		expect(() => verifyRoster(signed, signing.publicKey)).not.toThrow();
		expect(codeOfCall(() => verifyRoster({ ...signed, rosterVersion: 3 }, signing.publicKey))).toBe('SIGNATURE_INVALID');
		expect(codeOfCall(() => verifyRoster(signed, generateEd25519KeyPair().publicKey))).toBe('SIGNATURE_INVALID');
		expect(codeOfCall(() => verifyRoster({ ...signed, signature: signed.signature.slice(0, 40) }, signing.publicKey))).toBe(
			'INVALID_INPUT'
		);
	});

	it('refuses a key that is not 32 bytes of base64url', () => {
		expect(codeOfCall(() => rosterStatement(roster([{ agentKeyId: 'agk_12345678', publicKey: 'abc' }])))).toBe('INVALID_INPUT');
	});
});

describe('issuedAt (contract 2.9)', () => {
	it('accepts exactly YYYY-MM-DDTHH:MM:SSZ naming a real date', () => {
		for (const ok of ['2024-02-29T00:00:00Z', '2026-12-31T23:59:59Z', '2000-02-29T12:00:00Z']) expect(requireIssuedAt(ok)).toBe(ok);
	});

	it('refuses other forms and impossible dates', () => {
		for (const bad of [
			'2026-02-29T00:00:00Z',
			'1900-02-29T00:00:00Z',
			'2026-04-31T00:00:00Z',
			'2026-13-01T00:00:00Z',
			'2026-11-20T24:00:00Z',
			'2026-11-20T09:60:00Z',
			'2026-11-20T09:30:60Z',
			'2026-11-20T09:30:00.000Z',
			'2026-11-20T09:30:00+00:00',
			'2026-11-20 09:30:00Z',
			'2026-11-20T09:30:00z',
			'2026-11-20T09:30:00Z\n',
			'２０２６-11-20T09:30:00Z',
			'0000-01-01T00:00:00Z'
		]) {
			expect(
				codeOfCall(() => requireIssuedAt(bad)),
				bad
			).toBe('INVALID_INPUT');
		}
	});

	it('formats the current time without milliseconds', () => {
		expect(isoSeconds(new Date('2026-11-22T10:11:12.345Z'))).toBe('2026-11-22T10:11:12Z');
	});
});

import { describe, expect, it } from 'vitest';
import { codeForStatus, ContractError, fail, codeOf, isContractCode, statusOf } from './errors';

describe('the code → status table', () => {
	it('gives each HTTP code of contract 7.3 its status', () => {
		expect(
			[
				'INVALID_SIGNATURE',
				'SIGNATURE_EXPIRED',
				'IDEMPOTENCY_CONFLICT',
				'CONVERSATION_PENDING',
				'CONVERSATION_AWAITING_KEY',
				'INVALID_ENVELOPE',
				'KEY_VERSION_MISMATCH',
				'USER_DELETED',
				'ATTACHMENT_NOT_UPLOADED',
				'ATTACHMENT_ALREADY_USED'
			].map((code) => [code, statusOf(code as never)])
		).toEqual([
			['INVALID_SIGNATURE', 401],
			['SIGNATURE_EXPIRED', 401],
			['IDEMPOTENCY_CONFLICT', 409],
			['CONVERSATION_PENDING', 409],
			['CONVERSATION_AWAITING_KEY', 409],
			['INVALID_ENVELOPE', 400],
			['KEY_VERSION_MISMATCH', 409],
			['USER_DELETED', 410],
			['ATTACHMENT_NOT_UPLOADED', 409],
			['ATTACHMENT_ALREADY_USED', 409]
		]);
	});

	it("gives the inbox's own codes theirs, a conflict of state being 409 and a bad request 400", () => {
		expect(statusOf('UNAUTHENTICATED')).toBe(401);
		expect(statusOf('ORIGIN_REJECTED')).toBe(403);
		expect(statusOf('NOT_FOUND')).toBe(404);
		expect(statusOf('STATE_CONFLICT')).toBe(409);
		expect(statusOf('INVALID_REQUEST')).toBe(400);
		expect(statusOf('INVITATION_EXPIRED')).toBe(410);
		expect(statusOf('UNSUPPORTED_MEDIA_TYPE')).toBe(415);
		expect(statusOf('INVALID_RESPONSE')).toBe(502);
		expect(statusOf('UPSTREAM_UNAVAILABLE')).toBe(503);
	});

	it('gives crypto and key-store codes no status of their own', () => {
		for (const code of ['DECRYPT_FAILED', 'SIGNATURE_INVALID', 'SIGNATURE_MISSING', 'LOCKED', 'WRONG_PASSPHRASE'] as const) {
			expect(statusOf(code)).toBeUndefined();
		}
	});
});

describe('ContractError', () => {
	it('takes the status its code implies, unless the answer said another', () => {
		expect(new ContractError('NOT_FOUND', 'no such thing').status).toBe(404);
		expect(new ContractError('BINDING_INVALID', 'not bound', 409).status).toBe(409);
		expect(new ContractError('INVALID_REQUEST', 'odd', 422).toJSON()).toEqual({ code: 'INVALID_REQUEST', message: 'odd', status: 422 });
	});

	it('has no status for a code without one, and says so in its plain form', () => {
		const error = new ContractError('DECRYPT_FAILED');
		expect(error.status).toBeUndefined();
		expect(error.message).toBe('DECRYPT_FAILED');
		expect(error.toJSON()).toEqual({ code: 'DECRYPT_FAILED', message: 'DECRYPT_FAILED' });
		expect('status' in error.toJSON()).toBe(false);
	});

	it('survives the trip through plain data', () => {
		const back = ContractError.fromJSON(JSON.parse(JSON.stringify(new ContractError('STATE_CONFLICT', 'the job is done'))));
		expect(back).toBeInstanceOf(ContractError);
		expect([back.code, back.message, back.status, back.name]).toEqual(['STATE_CONFLICT', 'the job is done', 409, 'ContractError']);
	});

	it('is thrown by fail() and read back by codeOf()', () => {
		expect(() => fail('LOCKED', 'unlock first')).toThrowError(new ContractError('LOCKED', 'unlock first'));
		expect(codeOf(new ContractError('LOCKED'))).toBe('LOCKED');
		expect(codeOf(new Error('LOCKED'))).toBeUndefined();
		expect(isContractCode('STATE_CONFLICT')).toBe(true);
		expect(isContractCode('DECRYPT_FAILED')).toBe(true);
		expect(isContractCode('NOPE')).toBe(false);
		expect(isContractCode(404)).toBe(false);
	});
});

describe('codeForStatus', () => {
	it('reads a 401 or a 5xx by who answered', () => {
		expect(codeForStatus(401, 'inbox')).toBe('UNAUTHENTICATED');
		expect(codeForStatus(401, 'service')).toBe('INVALID_REQUEST');
		expect(codeForStatus(500, 'inbox')).toBe('UNAVAILABLE');
		expect(codeForStatus(503, 'service')).toBe('UPSTREAM_UNAVAILABLE');
		expect(codeForStatus(499, 'service')).toBe('INVALID_REQUEST');
	});

	it('names 404, 409 and 429 the same for both', () => {
		for (const answeredBy of ['inbox', 'service'] as const) {
			expect([404, 409, 429, 400, 418].map((status) => codeForStatus(status, answeredBy))).toEqual([
				'NOT_FOUND',
				'STATE_CONFLICT',
				'RATE_LIMITED',
				'INVALID_REQUEST',
				'INVALID_REQUEST'
			]);
		}
	});
});

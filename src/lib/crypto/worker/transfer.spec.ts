import { expose, wrap } from 'comlink';
import { afterAll, describe, expect, it } from 'vitest';
import { ContractError } from '../../errors';
import { installTransferHandlers } from './transfer';

installTransferHandlers();

const thrower = {
	contract: () => {
		throw new ContractError('KEY_MISMATCH', 'the wrap belongs to another conversation');
	},
	http: async () => {
		throw new ContractError('NOT_FOUND', 'no such conversation');
	},
	plain: () => {
		throw new TypeError('something broke');
	},
	value: () => {
		throw 'a thrown string';
	}
};

const { port1, port2 } = new MessageChannel();
expose(thrower, port1);
const remote = wrap<typeof thrower>(port2);

afterAll(() => {
	port1.close();
	port2.close();
});

async function caught(call: () => Promise<unknown>): Promise<unknown> {
	try {
		await call();
	} catch (error) {
		return error;
	}
	throw new Error('expected a rejection');
}

describe('thrown values across comlink', () => {
	it('a ContractError arrives as a ContractError with its code and message', async () => {
		const error = await caught(() => remote.contract());
		expect(error).toBeInstanceOf(ContractError);
		expect(error).toMatchObject({ code: 'KEY_MISMATCH', message: 'the wrap belongs to another conversation', name: 'ContractError' });
	});

	it('keeps the HTTP status', async () => {
		expect(await caught(() => remote.http())).toMatchObject({ code: 'NOT_FOUND', status: 404 });
	});

	it('another Error keeps its name and message but is no ContractError', async () => {
		const error = await caught(() => remote.plain());
		expect(error).toBeInstanceOf(Error);
		expect(error).not.toBeInstanceOf(ContractError);
		expect(error).toMatchObject({ name: 'TypeError', message: 'something broke' });
	});

	it('a thrown value that is not an Error arrives as itself', async () => {
		expect(await caught(() => remote.value())).toBe('a thrown string');
	});
});

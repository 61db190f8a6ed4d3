import { expose, transferHandlers, wrap } from 'comlink';
import { afterAll, describe, expect, it } from 'vitest';
import { ContractError } from '../errors';
import { installTransferHandlers, serializeThrown } from './transfer';

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

	it('a thrown value that cannot be copied arrives as an Error saying what it was', () => {
		expect(serializeThrown(Symbol('gone'))).toEqual({ kind: 'error', name: 'Error', message: 'Symbol(gone)' });
	});

	it('refuses to install without comlink handler to replace', async () => {
		// A module instance of its own, not installed yet (the query makes it another module).
		const fresh = (await import(/* @vite-ignore */ `./transfer.ts?${'not-installed'}`)) as typeof import('./transfer');
		const original = transferHandlers.get('throw')!;
		transferHandlers.delete('throw');
		try {
			expect(() => fresh.installTransferHandlers()).toThrow(new Error('comlink has no throw handler to replace'));
		} finally {
			transferHandlers.set('throw', original);
		}
	});
});

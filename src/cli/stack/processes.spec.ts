import { createServer } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { startProcess, waitForUrl, type RunningProcess } from './processes';

let running: RunningProcess | undefined;
afterEach(async () => {
	await running?.stop();
	running = undefined;
});

it('counts an answer on the URL only once the process is ready, so another process on the port is not taken for it', async () => {
	const foreign = createServer((_request, response) => response.end('someone else'));
	await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(foreign.address() as { port: number }).port}/`;
	try {
		running = startProcess('sleeper', process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], {});
		let ready = false;
		const waited = waitForUrl(url, [running], 10_000, () => ready);
		const settled = await Promise.race([waited.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 1000, 'waiting'))]);
		expect(settled).toBe('waiting');
		ready = true;
		await waited;

		const exiting = startProcess('exiting', process.execPath, ['-e', 'setTimeout(() => process.exit(3), 300)'], {});
		await expect(waitForUrl(url, [exiting], 10_000, () => false)).rejects.toThrow(/exiting exited with 3/);
	} finally {
		foreign.close();
	}
});

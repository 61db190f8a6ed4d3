/**
 * The crypto worker's test page (docs/crypto-worker.md "Tests and benchmark"): starts the inbox's crypto
 * worker, hands Playwright the helpers of harness.ts as `window.cryptoHarness`, and counts animation
 * frames, so a test sees the page keep rendering while the worker works.
 */
import { createCryptoWorker } from '../../../src/lib/crypto-worker/client';
import { createHarness, type CryptoHarness } from './harness';

const status = document.querySelector('[data-testid=status]')!;
const shownFrames = document.querySelector('[data-testid=frames]')!;
let frames = 0;
const tick = () => {
	shownFrames.textContent = String(++frames);
	requestAnimationFrame(tick);
};
requestAnimationFrame(tick);

const client = createCryptoWorker();
client
	.ready()
	.then(() => {
		(window as unknown as { cryptoHarness: CryptoHarness }).cryptoHarness = createHarness(client, () => frames);
		status.textContent = 'ready';
	})
	.catch((error: Error) => (status.textContent = `failed: ${error.message}`));

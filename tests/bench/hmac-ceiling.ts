/**
 * The ceiling for `npm run bench:server`: a bare node:http server that reads the raw body and verifies
 * the webhook signature with the crypto core (contract 5.2 steps 1–5), stores nothing, and answers 200.
 * Run as its own process: `tsx tests/bench/hmac-ceiling.ts <port> <secret>`.
 */
import { createServer } from 'node:http';
import { initCrypto } from '../../src/lib/crypto/sodium';
import { answerWebhook } from './webhook-answer';

const [port, secret] = process.argv.slice(2);
await initCrypto();
const server = createServer((request, response) => answerWebhook(request, response, secret));
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => console.log(`ceiling listening on ${port}`));

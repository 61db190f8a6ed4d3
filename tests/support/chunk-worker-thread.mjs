// The entry of a `worker_threads` chunk worker: loads TypeScript through tsx, then the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./chunk-worker-thread.ts');

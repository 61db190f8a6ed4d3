// The entry of a stream reader thread: loads TypeScript through tsx, then the reader itself.
import { register } from 'tsx/esm/api';

register();
await import('./stream-reader-thread.ts');

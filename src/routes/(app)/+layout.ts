/*
 * The agent's pages render in the browser only: the session, the crypto worker and the key store
 * (IndexedDB) live there, and nothing decrypted is ever rendered on the server.
 */
export const ssr = false;
export const prerender = false;

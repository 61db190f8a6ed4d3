// See https://svelte.dev/docs/kit/types#app.d.ts
declare global {
	namespace App {
		// interface Error {}
		interface Locals {
			/** The caller's session on `/api` routes (src/hooks.server.ts). */
			session?: import('$lib/server/auth/sessions').Session;
			/** What the gate checked of an `/api` request: its access level, conversation, proxied `/v1` route. */
			gate?: import('$lib/server/api/gate').GatePass;
		}
		// interface PageData {}
		// interface PageState {}
		// interface Platform {}
	}
}

export {};

// See https://svelte.dev/docs/kit/types#app.d.ts
declare global {
	namespace App {
		// interface Error {}
		interface Locals {
			/** The caller's session on `/api` routes (src/hooks.server.ts). */
			session?: import('$lib/server/auth/sessions').Session;
		}
		// interface PageData {}
		// interface PageState {}
		// interface Platform {}
	}
}

export {};

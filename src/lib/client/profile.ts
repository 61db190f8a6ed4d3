/**
 * The customer's profile as the page reads and writes it (docs/inbox-api.md §4 "Customer profile"): the
 * JSON text `{ "name", "notes" }` inside an `in1` record. Pure functions.
 */
export interface ProfileFields {
	name: string;
	notes: string;
}

export const MAX_PROFILE_NAME = 100;
export const MAX_PROFILE_NOTES = 4000;

/** A decrypted profile's fields; anything unexpected in it reads as empty rather than breaking the page. */
export function parseProfileText(text: string): ProfileFields {
	try {
		const value = JSON.parse(text) as Record<string, unknown>;
		return {
			name: typeof value?.name === 'string' ? value.name.slice(0, MAX_PROFILE_NAME) : '',
			notes: typeof value?.notes === 'string' ? value.notes.slice(0, MAX_PROFILE_NOTES) : ''
		};
	} catch {
		return { name: '', notes: '' };
	}
}

/** The text to encrypt: trimmed name, notes as written, within their limits. */
export function profileText(fields: ProfileFields): string {
	return JSON.stringify({ name: fields.name.trim().slice(0, MAX_PROFILE_NAME), notes: fields.notes.slice(0, MAX_PROFILE_NOTES) });
}

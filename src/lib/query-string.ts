/**
 * The query string of a request built by the inbox (docs/inbox-api.md, contract 5): parameters without
 * a value (undefined, null or empty) are left out, and none at all gives no `?`.
 */
export function queryString(params: Record<string, string | number | undefined | null>): string {
	const search = new URLSearchParams();
	for (const [key, value] of Object.entries(params))
		if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
	const text = search.toString();
	return text ? `?${text}` : '';
}

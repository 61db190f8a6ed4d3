/**
 * The names of files a customer sends (contract 2.6 `name`, `mime`; docs/threat-model.md, "A customer"):
 * the name is the customer's to choose, so what the inbox shows and saves is cleaned first. Bidirectional
 * and other invisible format characters go (`invoice\u202Egnp.exe` would show as `invoiceexe.png`), as do
 * control characters and path separators; a saved file's extension is one of its media type's, so what
 * the agent's system opens is what the type says (the table of extensions is the `mime` package's).
 */
import mime from 'mime/lite';
import { essence } from './viewer';

/** Bidi embeddings, overrides and isolates, marks, zero-width characters, word joiners and the BOM. */
// eslint-disable-next-line no-misleading-character-class -- each of these is a character of its own, removed alone
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u061C\u180E\uFEFF\u034F\u115F\u1160\u3164\uFFA0]/g;
// eslint-disable-next-line no-control-regex -- control characters are exactly what must go
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The name as the inbox shows it: without invisible and control characters; `attachment` when nothing is left. */
export function displayName(name: string): string {
	const cleaned = name.replace(INVISIBLE, '').replace(CONTROL, '_').trim();
	return cleaned === '' ? 'attachment' : cleaned;
}

/**
 * The name a download is saved under: the shown name without path separators, ending in an extension
 * of `type` — the canonical one is added when the name's own is not one of them. Types without a
 * known extension keep the name as it is.
 */
export function downloadName(name: string, type: string): string {
	let cleaned = displayName(name).replace(/[/\\]/g, '_');
	if (cleaned === '.' || cleaned === '..') cleaned = 'attachment';
	const extensions = mime.getAllExtensions(essence(type));
	const canonical = mime.getExtension(essence(type));
	if (!extensions || !canonical || essence(type) === 'application/octet-stream') return cleaned;
	const dot = cleaned.lastIndexOf('.');
	const own = dot > 0 ? cleaned.slice(dot + 1).toLowerCase() : '';
	return extensions.has(own) ? cleaned : `${cleaned}.${canonical}`;
}

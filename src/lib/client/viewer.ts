/**
 * Which decrypted attachments may be shown, and how (contract 2.6 `mime`): raster images,
 * audio, video and plain text open in the viewer tab, inside a sandboxed frame without
 * `allow-same-origin` or `allow-scripts`; PDFs are painted by pdf.js in a frame sandboxed without
 * `allow-same-origin`; every other type (HTML, SVG, …) is a download only.
 */

export type ViewerKind = 'image' | 'audio' | 'video' | 'text' | 'pdf';

/** Exact media types, never prefixes: `image/svg+xml` is an image that runs script, so it is not here. */
const VIEWABLE: Readonly<Record<string, ViewerKind>> = {
	'image/png': 'image',
	'image/jpeg': 'image',
	'image/gif': 'image',
	'image/webp': 'image',
	'image/avif': 'image',
	'image/bmp': 'image',
	'audio/mpeg': 'audio',
	'audio/ogg': 'audio',
	'audio/wav': 'audio',
	'audio/x-wav': 'audio',
	'audio/webm': 'audio',
	'audio/aac': 'audio',
	'audio/mp4': 'audio',
	'audio/flac': 'audio',
	'video/mp4': 'video',
	'video/webm': 'video',
	'video/ogg': 'video',
	'text/plain': 'text',
	// painted by pdf.js in a frame of its own that has no origin (/pdf-frame.html, src/lib/server/pdf-frame.ts)
	'application/pdf': 'pdf'
};

/** The media type without parameters, lowercased (`Text/Plain; charset=x` → `text/plain`). */
export function essence(mime: string): string {
	return mime.split(';')[0].trim().toLowerCase();
}

/** How the viewer shows this type, or null when it may only be downloaded. */
export function viewerKind(mime: string): ViewerKind | null {
	return VIEWABLE[essence(mime)] ?? null;
}

/** Raster images get an inline thumbnail (an `<img>`, which never runs script). */
export function isThumbnailable(mime: string): boolean {
	return viewerKind(mime) === 'image';
}

/**
 * The type the decrypted Blob is given for the viewer: the allowlisted essence, and UTF-8 for text so
 * the browser does not guess an encoding. Types outside the allowlist get `application/octet-stream`,
 * which no browser renders.
 */
export function viewerBlobType(mime: string): string {
	const kind = viewerKind(mime);
	if (kind === null) return 'application/octet-stream';
	return kind === 'text' ? 'text/plain;charset=utf-8' : essence(mime);
}

export interface ViewerRequest {
	/** A `blob:` URL of this origin, made by the inbox tab. */
	src: string;
	name: string;
	mime: string;
}

/** `#src=…&name=…&mime=…`, the fragment of the viewer's URL: it never reaches a server. */
export function viewerFragment(request: ViewerRequest): string {
	return `#${new URLSearchParams({ src: request.src, name: request.name, mime: request.mime })}`;
}

/** `/viewer#…` (for a site served under a base path, pass the resolved `/viewer`). */
export function viewerHref(request: ViewerRequest, viewerPath = '/viewer'): string {
	return `${viewerPath}${viewerFragment(request)}`;
}

/**
 * Reads the viewer's fragment; null unless `src` is a blob URL of `origin` and the type is on the
 * allowlist (a crafted link cannot make the viewer show anything else).
 */
export function parseViewerFragment(hash: string, origin: string): (ViewerRequest & { kind: ViewerKind }) | null {
	const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
	const src = params.get('src') ?? '';
	const mime = params.get('mime') ?? '';
	const name = params.get('name') ?? 'file';
	if (!src.startsWith(`blob:${origin}/`)) return null;
	const kind = viewerKind(mime);
	if (kind === null) return null;
	return { src, name, mime: essence(mime), kind };
}

/**
 * Files staged before sending (docs/inbox-api.md §11 "Attachments"): picked or dropped files wait
 * in a tray in the order chosen, each with its caption and a way to remove it, and are sent together,
 * in that order, when the agent sends. Images get a thumbnail from an object URL of the local file.
 */
import { checkFileSize } from './attachments';
import { explainError } from './explain';
import { isThumbnailable } from './viewer';

export interface StagedFile {
	id: string;
	file: File;
	caption: string;
	/** An object URL of an image, for its thumbnail; null for other files. */
	preview: string | null;
}

/** Files sent at once: more are refused with a sentence, so a stray drop of a folder sends nothing by surprise. */
export const MAX_STAGED_FILES = 10;

let staged = 0;

/** Adds files at the end of the tray; a file too large, or past the tray's size, is refused with its reason. */
export function stageFiles(
	tray: readonly StagedFile[],
	files: readonly File[],
	preview: (file: File) => string
): { tray: StagedFile[]; refused: string[] } {
	const refused: string[] = [];
	const next = [...tray];
	for (const file of files) {
		if (next.length >= MAX_STAGED_FILES) {
			refused.push(`${file.name}: at most ${MAX_STAGED_FILES} files are sent at once.`);
			continue;
		}
		try {
			checkFileSize(file);
		} catch (error) {
			refused.push(`${file.name}: ${explainError(error)}`);
			continue;
		}
		next.push({ id: `staged_${++staged}`, file, caption: '', preview: isThumbnailable(file.type) ? preview(file) : null });
	}
	return { tray: next, refused };
}

/** The files to send, in the tray's order, with their captions (white space only is none). */
export function filesToSend(tray: readonly StagedFile[]): Array<{ file: File; caption?: string }> {
	return tray.map(({ file, caption }) => (caption.trim() ? { file, caption: caption.trim() } : { file }));
}

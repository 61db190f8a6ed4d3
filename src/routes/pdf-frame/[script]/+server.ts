/** pdf.js, for the PDF preview frame (docs/inbox-api.md §11 "Attachments"; src/lib/server/pdf-frame.ts). */
import { error } from '@sveltejs/kit';
import { read } from '$app/server';
import { pdfFrameAsset, pdfFrameScript } from '$lib/server/pdf-frame';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = ({ params }) => {
	const asset = pdfFrameAsset(params.script);
	if (asset === undefined) error(404, 'Not Found');
	return pdfFrameScript(read(asset));
};

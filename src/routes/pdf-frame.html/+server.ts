/** The PDF preview's frame (docs/inbox-api.md §11 "Attachments"; src/lib/server/pdf-frame.ts). */
import { pdfFrameDocument } from '$lib/server/pdf-frame';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = ({ url }) => pdfFrameDocument(url.origin);

/**
 * The PDF preview frame's own script (docs/inbox-api.md §11 "Attachments"), inline in the frame's
 * document (src/lib/server/pdf-frame.ts), whose policy makes it an opaque origin whoever frames or opens
 * it and allows this script by its hash. It takes the bytes of one PDF from its parent, only from the
 * inbox's origin, imports pdf.js from the fixed URLs its document names, and paints each page on a
 * canvas. pdf.js evaluates nothing (`isEvalSupported: false`) and runs no script of the document (its
 * scripting sandbox is not loaded).
 */
const MAX_PAGES = 200;

/** The inbox: the origin of this document's URL; the document's own origin is opaque (`self.origin` is "null"). */
const inbox = location.origin;
const library = String(document.body.dataset.library);
const worker = String(document.body.dataset.worker);

/** @param {{ ready: true } | { rendered: number, total: number } | { failed: string }} message */
const tell = (message) => parent.postMessage(message, inbox);

/** @param {ArrayBuffer} pdf */
async function paint(pdf) {
	/** @type {[typeof import('pdfjs-dist'), unknown]} */
	const [pdfjs, pdfjsWorker] = await Promise.all([import(library), import(worker)]);
	// pdf.js runs its worker's code in this thread: an opaque origin may not start a worker of the inbox's
	Object.assign(globalThis, { pdfjsWorker });
	const pdfDocument = await pdfjs.getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, enableXfa: false }).promise;
	const pages = Math.min(pdfDocument.numPages, MAX_PAGES);
	for (let number = 1; number <= pages; number++) {
		const page = await pdfDocument.getPage(number);
		const viewport = page.getViewport({ scale: 1.5 });
		const canvas = document.createElement('canvas');
		canvas.width = Math.floor(viewport.width);
		canvas.height = Math.floor(viewport.height);
		canvas.setAttribute('role', 'img');
		canvas.setAttribute('aria-label', `Page ${number} of ${pdfDocument.numPages}`);
		document.body.append(canvas);
		await page.render({ canvas, canvasContext: /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')), viewport }).promise;
	}
	tell({ rendered: pages, total: pdfDocument.numPages });
}

addEventListener('message', (event) => {
	if (event.origin !== inbox || event.source !== parent || !(event.data?.pdf instanceof ArrayBuffer)) return;
	paint(event.data.pdf).catch((error) => tell({ failed: String(error?.message ?? error) }));
});
addEventListener('unhandledrejection', (event) => tell({ failed: String(event.reason?.message ?? event.reason) }));
addEventListener('error', (event) => tell({ failed: String(event.message) }));
tell({ ready: true });

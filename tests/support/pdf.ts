/**
 * What the PDF preview's tests share (docs/inbox-api.md §11 "Attachments"): a one-page PDF built by hand,
 * and a count of the ink pdf.js painted on the preview frame's canvas.
 */

/** A PDF saying `text` in Helvetica; given `script`, its opening action runs that PDF JavaScript. */
export function onePagePdf(text: string, script?: string): Buffer {
	const objects = [
		`<< /Type /Catalog /Pages 2 0 R${script === undefined ? '' : ' /OpenAction 6 0 R'} >>`,
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
		null, // the content stream, below
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
	];
	if (script !== undefined) objects.push(`<< /S /JavaScript /JS (${script.replace(/[()\\]/g, (c) => `\\${c}`)}) >>`);
	const content = `BT /F1 24 Tf 40 100 Td (${text}) Tj ET`;
	objects[3] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
	let pdf = '%PDF-1.4\n';
	const offsets: number[] = [];
	objects.forEach((body, index) => {
		offsets.push(pdf.length);
		pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
	});
	const xref = pdf.length;
	pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
	pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(pdf, 'latin1');
}

/** The dark, painted pixels of the first canvas in the document; evaluated in the PDF frame, so it refers to nothing outside. */
export function inkOnCanvas(): number {
	const canvas = document.querySelector('canvas')!;
	const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
	let dark = 0;
	for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 128 && pixels[i + 3] > 0) dark++;
	return dark;
}

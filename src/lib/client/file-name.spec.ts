import { describe, expect, it } from 'vitest';
import { displayName, downloadName } from './file-name';

describe('file names a customer chose (docs/threat-model.md, "A customer")', () => {
	it('shows a name without bidirectional and invisible characters, so it reads as it is', () => {
		expect(displayName('invoice\u202Egnp.exe')).toBe('invoicegnp.exe');
		expect(displayName('\u2066report\u2069\u200B.pdf\u200E\uFEFF')).toBe('report.pdf');
		expect(displayName('a\u061Cb\u2060c\u200Dd.txt')).toBe('abcd.txt');
		expect(displayName('tab\there\u0085.txt')).toBe('tab_here_.txt');
		expect(displayName('\u202E\u200B ')).toBe('attachment');
		expect(displayName('Ünïcödé 文件.png')).toBe('Ünïcödé 文件.png');
	});

	it('saves a file under an extension of its media type', () => {
		expect(downloadName('invoice\u202Egnp.exe', 'image/png')).toBe('invoicegnp.exe.png');
		expect(downloadName('photo.JPG', 'image/jpeg')).toBe('photo.JPG');
		expect(downloadName('photo.jpeg', 'image/jpeg; charset=x')).toBe('photo.jpeg');
		expect(downloadName('notes', 'text/plain')).toBe('notes.txt');
		expect(downloadName('page.html', 'application/pdf')).toBe('page.html.pdf');
		expect(downloadName('tool.exe', 'application/octet-stream')).toBe('tool.exe');
		expect(downloadName('data.bin', 'application/x-unknown-type')).toBe('data.bin');
	});

	it('never saves a path', () => {
		expect(downloadName('../../etc/passwd', 'text/plain')).toBe('.._.._etc_passwd.txt');
		expect(downloadName('..', 'application/octet-stream')).toBe('attachment');
		expect(downloadName('a\\b.txt', 'text/plain')).toBe('a_b.txt');
	});
});

import { describe, expect, it } from 'vitest';
import { MAX_ATTACHMENT_SIZE } from '../crypto/attachment-meta';
import { filesToSend, MAX_STAGED_FILES, stageFiles } from './staging';

const file = (name: string, type = 'application/octet-stream', size = 3) => new File([new Uint8Array(size)], name, { type });

describe('the tray of files to send', () => {
	it('adds files in order, with a thumbnail for raster images only', () => {
		const previews: string[] = [];
		const preview = (staged: File) => {
			previews.push(staged.name);
			return `blob:${staged.name}`;
		};
		const first = stageFiles([], [file('a.bin'), file('b.png', 'image/png')], preview);
		const second = stageFiles(first.tray, [file('c.svg', 'image/svg+xml')], preview);
		expect(second.refused).toEqual([]);
		expect(second.tray.map((item) => [item.file.name, item.preview, item.caption])).toEqual([
			['a.bin', null, ''],
			['b.png', 'blob:b.png', ''],
			['c.svg', null, '']
		]);
		expect(previews).toEqual(['b.png']);
		expect(new Set(second.tray.map((item) => item.id)).size).toBe(3);
	});

	it('refuses a file over 25 MiB and past the tray size, saying which and why, and keeps the rest', () => {
		const huge = { name: 'huge.bin', type: '', size: MAX_ATTACHMENT_SIZE + 1 } as File;
		const result = stageFiles([], [huge, file('ok.bin')], () => 'blob:x');
		expect(result.tray.map((item) => item.file.name)).toEqual(['ok.bin']);
		expect(result.refused).toEqual([expect.stringMatching(/^huge\.bin: Files can be at most 25 MiB/)]);

		const full = stageFiles(
			[],
			Array.from({ length: MAX_STAGED_FILES }, (_, n) => file(`f${n}.bin`)),
			() => 'blob:x'
		).tray;
		const over = stageFiles(full, [file('one-too-many.bin')], () => 'blob:x');
		expect(over.tray).toHaveLength(MAX_STAGED_FILES);
		expect(over.refused).toEqual([`one-too-many.bin: at most ${MAX_STAGED_FILES} files are sent at once.`]);
	});

	it('sends the files in the tray order with their trimmed captions', () => {
		const { tray } = stageFiles([], [file('a.bin'), file('b.bin')], () => 'blob:x');
		tray[1].caption = '  the second  ';
		tray[0].caption = ' ';
		expect(filesToSend(tray)).toEqual([{ file: tray[0].file }, { file: tray[1].file, caption: 'the second' }]);
	});
});

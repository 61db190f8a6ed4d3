/**
 * Where a Linux process's resident memory is, from `/proc/<pid>/smaps` (docs/operations.md "Soak"): the
 * metrics name the V8 heaps and PGlite's WASM memory as the runtimes count them, this names the pages the
 * kernel holds for each kind of mapping, so that growth the metrics do not name gets a place.
 *
 * An anonymous mapping is known by the reservation it starts: a WebAssembly memory is reserved whole with
 * its guard pages (over 4 GiB on 64-bit), its committed pages first; glibc's arena of a thread other
 * than the main one is 64 MiB aligned to 64 MiB, its pages in use first; `[heap]` is the main thread's
 * malloc arena; mapped files are the code and data of node and its libraries; what is left (V8's heaps
 * and code of every thread, thread stacks) is the rest.
 */
import { readFileSync } from 'node:fs';

export interface ResidentParts {
	/** Pages of mapped files: node, its libraries, ICU data. */
	files: number;
	/** malloc: the main arena (`[heap]`) and the 64 MiB arenas of other threads. */
	malloc: number;
	/** WebAssembly memories (their committed pages). */
	wasm: number;
	/** Every other anonymous page: V8's heaps and code, thread stacks. */
	otherAnonymous: number;
}

export const RESIDENT_PARTS: [keyof ResidentParts, string][] = [
	['files', 'files'],
	['malloc', 'malloc'],
	['wasm', 'WASM'],
	['otherAnonymous', 'other anonymous']
];

const KIB = 1024;
const ARENA = 64 * 1024 * KIB;
const WASM_RESERVATION = 4 * 1024 * 1024 * KIB;

interface Mapping {
	start: number;
	end: number;
	path: string;
	rssKiB: number;
}

function mappings(pid: number): Mapping[] {
	const found: Mapping[] = [];
	for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
		const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
		if (header) {
			found.push({ start: parseInt(header[1], 16), end: parseInt(header[2], 16), path: header[3], rssKiB: 0 });
			continue;
		}
		const rss = /^Rss:\s+(\d+) kB/.exec(line);
		if (rss && found.length > 0) found[found.length - 1].rssKiB = Number(rss[1]);
	}
	return found;
}

/** What kind of memory the anonymous mapping `index` of `all` is. */
function anonymousKind(all: Mapping[], index: number): keyof ResidentParts {
	const mapping = all[index];
	const next = all[index + 1];
	const nextAdjacent = next !== undefined && next.path === '' && next.start === mapping.end;
	// a WebAssembly memory: its committed pages, then the rest of its reservation, inaccessible
	if (mapping.end - mapping.start >= WASM_RESERVATION) return 'wasm';
	if (nextAdjacent && next.end - next.start >= WASM_RESERVATION) return 'wasm';
	// a thread's arena: its pages in use, then the rest of its 64 MiB
	if (mapping.start % ARENA === 0 && (mapping.end - mapping.start === ARENA || (nextAdjacent && next.end === mapping.start + ARENA))) {
		return 'malloc';
	}
	return 'otherAnonymous';
}

/** What kind of memory the mapping `index` of `all` is. */
function kindOf(all: Mapping[], index: number): keyof ResidentParts {
	const { path } = all[index];
	if (path === '') return anonymousKind(all, index);
	if (path === '[heap]') return 'malloc';
	// [stack], [vdso] and the like hold next to nothing
	return path.startsWith('/') ? 'files' : 'otherAnonymous';
}

/** The process's resident memory by kind of mapping, in MiB. */
export function residentParts(pid: number): ResidentParts {
	const parts: ResidentParts = { files: 0, malloc: 0, wasm: 0, otherAnonymous: 0 };
	const all = mappings(pid);
	all.forEach((mapping, index) => {
		parts[kindOf(all, index)] += mapping.rssKiB / KIB;
	});
	return parts;
}

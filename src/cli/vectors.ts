/**
 * `npm run --silent vectors -- [--json] [--hmac sodium|node] FILE`: runs a conformance file
 * (contract 9.1) against the crypto core. With `--json`, prints exactly one JSON report on stdout.
 * Exit 0 when every case passes, 1 when one fails, 2 when the file cannot be read or used.
 */
import { readFile } from 'node:fs/promises';
import { coreImplementation } from '../lib/conformance/implementation';
import { runConformance, type ConformanceReport } from '../lib/conformance/runner';
import { sodiumHmacSha256 } from '../lib/crypto/hmac';
import { nodeHmacSha256 } from '../lib/server/hmac';

const USAGE = 'usage: npm run --silent vectors -- [--json] [--hmac sodium|node] FILE';

function parseArguments(argv: string[]): { json: boolean; hmac: 'sodium' | 'node'; file: string } {
	let json = false;
	let hmac: 'sodium' | 'node' = 'sodium';
	const files: string[] = [];
	for (let i = 0; i < argv.length; i++) {
		const argument = argv[i];
		if (argument === '--json') json = true;
		else if (argument === '--hmac' || argument.startsWith('--hmac=')) {
			const value = argument.includes('=') ? argument.slice(7) : argv[++i];
			if (value !== 'sodium' && value !== 'node') throw new Error(`--hmac must be sodium or node\n${USAGE}`);
			hmac = value;
		} else if (argument.startsWith('-')) throw new Error(`unknown option ${argument}\n${USAGE}`);
		else files.push(argument);
	}
	if (files.length !== 1) throw new Error(USAGE);
	return { json, hmac, file: files[0] };
}

function printTable(report: ConformanceReport): void {
	const groupWidth = Math.max(5, ...report.results.map((result) => result.group.length));
	const nameWidth = Math.max(4, ...report.results.map((result) => result.name.length));
	console.log(`${'group'.padEnd(groupWidth)}  ${'case'.padEnd(nameWidth)}  result`);
	for (const result of report.results) {
		console.log(`${result.group.padEnd(groupWidth)}  ${result.name.padEnd(nameWidth)}  ${result.ok ? 'ok  ' : 'FAIL'}  ${result.detail}`);
	}
	console.log(`\n${report.file}: ${report.passed} of ${report.total} passed, ${report.failed} failed`);
}

async function main(): Promise<number> {
	let options: ReturnType<typeof parseArguments>;
	try {
		options = parseArguments(process.argv.slice(2));
	} catch (error) {
		console.error((error as Error).message);
		return 2;
	}
	let content: unknown;
	try {
		content = JSON.parse(await readFile(options.file, 'utf8'));
	} catch (error) {
		const message = `cannot read ${options.file}: ${(error as Error).message}`;
		if (options.json) console.log(JSON.stringify({ file: options.file, error: message }));
		else console.error(message);
		return 2;
	}
	let report: ConformanceReport;
	try {
		report = await runConformance(options.file, content, coreImplementation(options.hmac === 'node' ? nodeHmacSha256 : sodiumHmacSha256));
	} catch (error) {
		const message = `${options.file} cannot be used: ${(error as Error).message}`;
		if (options.json) console.log(JSON.stringify({ file: options.file, error: message }));
		else console.error(message);
		return 2;
	}
	if (options.json) console.log(JSON.stringify(report));
	else printTable(report);
	return report.failed === 0 ? 0 : 1;
}

process.exitCode = await main();

/**
 * What `npm test` needs that npm does not bring: Debian's Chromium for the browser tests, Firefox ESR for
 * the Firefox smoke test, PostgreSQL's server binaries for the throwaway cluster of the PostgreSQL run,
 * Prometheus's `promtool` to check the metrics, and HAProxy for the cluster suite. Installs them with
 * apt-get when missing (as root), or stops with a clear message.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
export const PROMTOOL_PATH = '/usr/bin/promtool';
export const HAPROXY_PATH = '/usr/sbin/haproxy';

/** The newest `/usr/lib/postgresql/<version>/bin` holding initdb, if any. */
export function postgresBinDir(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((version) => existsSync(`${root}/${version}/bin/initdb`))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? `${root}/${versions[0]}/bin` : undefined;
}

function isRoot(): boolean {
	return typeof process.getuid === 'function' && process.getuid() === 0;
}

let aptUpdated = false;

function aptInstall(packages: string[], why: string): void {
	if (!isRoot()) {
		console.error(`npm test needs ${why}. Install it with: sudo apt-get install -y ${packages.join(' ')}`);
		process.exit(1);
	}
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	console.log(`Installing ${packages.join(', ')} from Debian (${why})...`);
	try {
		if (!aptUpdated) {
			execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
			aptUpdated = true;
		}
		execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: 'inherit', env });
	} catch {
		console.error(`Could not install ${packages.join(' ')}; install it by hand and run npm test again.`);
		process.exit(1);
	}
}

export function ensurePrerequisites(): void {
	if (!existsSync(CHROMIUM_PATH)) aptInstall(['chromium'], 'Chromium for the browser tests');
	if (!existsSync(FIREFOX_PATH)) aptInstall(['firefox-esr'], 'Firefox ESR for the Firefox smoke test');
	if (!postgresBinDir()) aptInstall(['postgresql'], 'PostgreSQL for the PostgreSQL test run');
	if (!existsSync(PROMTOOL_PATH)) aptInstall(['prometheus'], "Prometheus's promtool to check the metrics");
	if (!existsSync(HAPROXY_PATH)) aptInstall(['haproxy'], 'HAProxy for the cluster suite');
}

if (import.meta.url === `file://${process.argv[1]}`) ensurePrerequisites();

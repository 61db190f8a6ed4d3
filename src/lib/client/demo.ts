/**
 * Demo mode only: the demo launcher made each demo agent's key in Node and saved its
 * backup file; when the server runs with the demo switch on, it hands the signed-in demo agent that
 * file so the person does not have to pick it. Any other server answers 404 and nothing is offered.
 */
export interface DemoBackup {
	fileName: string;
	/** The backup file's JSON text (encrypted under the demo password). */
	text: string;
}

export async function fetchDemoBackup(): Promise<DemoBackup | null> {
	try {
		const response = await fetch('/api/demo/key-backup', { credentials: 'same-origin', cache: 'no-store' });
		if (!response.ok) return null;
		const body = (await response.json()) as Partial<DemoBackup>;
		return typeof body.fileName === 'string' && typeof body.text === 'string' ? { fileName: body.fileName, text: body.text } : null;
	} catch {
		return null;
	}
}

/**
 * The XMLHttpRequest of a page under test (tests/support/page-environment.ts), made over the runtime's
 * own fetch: happy-dom's cannot send the runtime's Blob (it sends the text "[object Blob]"), and the
 * page's uploads of ciphertext PUT a Blob to the storage URL (contract 2.7). What an upload uses is here:
 * method, URL, headers, no credentials, the body, one progress event when it is sent, and load or error.
 */
type Fetch = typeof fetch;

export function xhrOver(runtimeFetch: Fetch) {
	return class FetchXMLHttpRequest {
		status = 0;
		withCredentials = false;
		readonly upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
		onload: (() => void) | null = null;
		onerror: (() => void) | null = null;
		onabort: (() => void) | null = null;
		#method = 'GET';
		#url = '';
		readonly #headers = new Headers();

		open(method: string, url: string): void {
			this.#method = method;
			this.#url = url;
		}

		setRequestHeader(name: string, value: string): void {
			this.#headers.set(name, value);
		}

		send(body: Blob | null = null): void {
			const init = { method: this.#method, headers: this.#headers, body, credentials: this.withCredentials ? 'include' : 'omit' } as const;
			void runtimeFetch(this.#url, init).then(
				async (response) => {
					await response.arrayBuffer();
					const size = body?.size ?? 0;
					this.upload.onprogress?.({ loaded: size, total: size, lengthComputable: true } as ProgressEvent);
					this.status = response.status;
					this.onload?.();
				},
				() => this.onerror?.()
			);
		}
	};
}

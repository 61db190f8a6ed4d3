/* The viewer reads a blob URL from its fragment, so it exists only in the browser. */
export const ssr = false;
export const prerender = false;

/** Keyboard shortcuts of the inbox pages: they never fire while the agent writes in a field. */
export function isTyping(target: EventTarget | null): boolean {
	const element = target as HTMLElement | null;
	return !!element && (element.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName));
}

/** Touch-only screens (a phone, a tablet without keyboard): no hover and a coarse pointer, as the CSS's `.keyboard-hint` rule. */
export const TOUCH_ONLY_QUERY = '(hover: none) and (pointer: coarse)';

export function isTouchOnly(): boolean {
	return typeof matchMedia === 'function' && matchMedia(TOUCH_ONLY_QUERY).matches;
}

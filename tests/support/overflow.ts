/**
 * What is cut off on a screen (docs/inbox-api.md §11 "Phone layout"): every rendered element, not only
 * the document, is checked for content wider than its box and for a box past the screen's edges. A
 * deliberate sideways scroller says so with the class `h-scroller` (app.css shades each of its edges
 * that has more beyond it); text ellipsized on purpose, a text field's own value (the field scrolls it)
 * and visually-hidden elements are left alone; a select must show its chosen option whole, or end it in
 * an ellipsis.
 */
import type { Page } from '@playwright/test';

/** The class of an element that scrolls sideways on purpose (and shows it with shaded edges). */
export const SIDEWAYS_SCROLLER = 'h-scroller';

/**
 * One line per element that is cut off or sticks out, naming it by a selector path and its widths;
 * an empty list when everything fits.
 */
export function cutOffElements(page: Page): Promise<string[]> {
	return page.evaluate((scrollerClass) => {
		/** Sub-pixel layout and borders round differently; a cut-off that matters is wider than this. */
		const TOLERANCE = 1;
		const screenWidth = document.documentElement.clientWidth;
		const found: string[] = [];

		const describe = (element: Element): string => {
			const steps: string[] = [];
			for (let at: Element | null = element; at && steps.length < 6; at = at.parentElement) {
				const testId = at.getAttribute('data-testid');
				const classes = [...at.classList].filter((name) => !name.startsWith('svelte-')).slice(0, 2);
				steps.unshift(at.tagName.toLowerCase() + (testId ? `[data-testid=${testId}]` : '') + classes.map((name) => `.${name}`).join(''));
				if (testId || at.id || at === document.body) break;
			}
			const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
			return steps.join(' > ') + (text ? ` ("${text}")` : '');
		};

		/** The 1 px clipped box of `.visually-hidden`: there for screen readers, never seen. */
		const visuallyHidden = (style: CSSStyleDeclaration, box: DOMRect) =>
			(style.clip !== 'auto' && style.clip !== '') || (box.width <= 1 && box.height <= 1 && style.overflow !== 'visible');

		const isScrolling = (overflow: string) => overflow === 'auto' || overflow === 'scroll';

		/** The width a select needs to show its chosen option whole: a copy holding only that option, sized by it. */
		const neededBySelect = (select: HTMLSelectElement): number => {
			const probe = select.cloneNode(false) as HTMLSelectElement;
			const chosen = select.selectedOptions[0];
			if (chosen) probe.append(chosen.cloneNode(true));
			probe.removeAttribute('id');
			probe.style.cssText = 'position: absolute; visibility: hidden; width: auto; min-width: 0; max-width: none';
			select.after(probe);
			const width = probe.getBoundingClientRect().width;
			probe.remove();
			return width;
		};

		/**
		 * Checks `element` and what it holds; returns whether anything in it was reported. Only the
		 * outermost box past the screen is named (what it holds goes with it), and a box too narrow for its
		 * content only when nothing inside it was named already (the innermost culprit).
		 */
		const visit = (element: Element, outsideMatters: boolean): boolean => {
			const style = getComputedStyle(element);
			// a box-less wrapper (SvelteKit's root `display: contents`): only its children are drawn
			if (style.display === 'contents') return [...element.children].map((child) => visit(child, outsideMatters)).includes(true);
			if (!element.checkVisibility({ visibilityProperty: true })) return false;
			const box = element.getBoundingClientRect();
			if (visuallyHidden(style, box)) return false;
			// a select draws its options itself; what it shows in its box is the chosen one
			if (element instanceof HTMLSelectElement && style.textOverflow !== 'ellipsis') {
				const needed = neededBySelect(element);
				if (needed > box.width + TOLERANCE) {
					found.push(`${describe(element)} cuts off its choice: it needs ${Math.round(needed)} px, has ${Math.round(box.width)} px`);
					return true;
				}
			}
			if (element instanceof HTMLSelectElement) return false;

			const pastScreen = box.width > 0 && (box.right > screenWidth + TOLERANCE || box.left < -TOLERANCE);
			const html = element as HTMLElement;
			const deliberate = isScrolling(style.overflowX) && element.classList.contains(scrollerClass);
			let reported = false;
			if (outsideMatters && pastScreen) {
				found.push(`${describe(element)} spans ${Math.round(box.left)}…${Math.round(box.right)} px, past the ${screenWidth} px screen`);
				reported = true;
			}
			for (const child of element.children) if (visit(child, outsideMatters && !pastScreen && !deliberate)) reported = true;

			const overflowing = html.scrollWidth - html.clientWidth;
			const ellipsized = style.textOverflow === 'ellipsis' && style.overflowX !== 'visible';
			// a text field scrolls its own value under the caret, as every text field does
			const field = element.tagName === 'INPUT';
			if (!reported && overflowing > TOLERANCE && html.clientWidth > 0 && !deliberate && !ellipsized && !field) {
				const how = isScrolling(style.overflowX)
					? 'scrolls sideways, unmarked'
					: style.overflowX === 'visible'
						? 'spills out'
						: 'is cut off';
				found.push(`${describe(element)} ${how}: content ${html.scrollWidth} px in a ${html.clientWidth} px box`);
				reported = true;
			}
			return reported;
		};

		visit(document.documentElement, true);
		return found;
	}, SIDEWAYS_SCROLLER);
}

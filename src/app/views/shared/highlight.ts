/**
 * Stable names for the parts of the views a walkthrough chapter can point at. A view marks an
 * element with `{...highlightable('counters')}`; the walkthrough outlines `[data-hl="counters"]`
 * and scrolls it into view. Renaming a class or a test id never breaks a chapter.
 */
export const HIGHLIGHTS = [
  'grids',
  'legend',
  'inspector',
  'defects',
  'counters',
  'steps',
  'computed-tokens',
  'block-table',
  'done-message',
  'response-tokens',
  'response-leak',
  'transfer-status',
  'timeline',
  'stage',
  'stage-caption',
  'outcome-actual',
  'outcome-fixed',
] as const;

/** A part of a view, or one node's page grid (`node-decode-0`). */
export type HighlightId = (typeof HIGHLIGHTS)[number] | `node-${string}`;

export function highlightable(id: HighlightId): { 'data-hl': string } {
  return { 'data-hl': id };
}

export function highlightSelector(id: HighlightId): string {
  return `[data-hl="${id}"]`;
}

/**
 * Style rules in a style element of their own (`id`), replacing what it held: the outline on what a
 * chapter points at (a rule follows the views through re-renders, where a class on a node would be
 * lost), the lens's rules while it is on. Empty `css` removes them.
 */
export function setPageRules(id: string, css: string): void {
  let style = document.getElementById(id) as HTMLStyleElement | null;
  if (!style) {
    style = document.createElement('style');
    style.id = id;
    document.head.appendChild(style);
  }
  // Rewriting a style sheet restyles the whole page (some 2,000 elements, 10–25 ms a time): only when it changes,
  // not at every beat that points at the same part.
  if (style.textContent !== css) style.textContent = css;
}

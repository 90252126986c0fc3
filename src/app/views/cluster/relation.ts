/**
 * What a page IS to the selected request, the one classification the grids, the block-table strip,
 * the inspector and the legend share. At incident scale forty-odd tenants would share a couple of
 * dozen hues and the grids would read as one texture; what a reader needs at a leaking instant is
 * which of the request's pages it wrote itself, which one is the placeholder, and which still carry
 * someone else's KV. The writer's tenant stays the second cue (hover, inspector, slot zoom).
 */
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from '../../../engine/kvPool.ts';
import type { NodeSnapshot, RunSummary } from '../../run/hooks.ts';
import { OTHER_GREYS, RELATION_COLOURS, rgbCss } from '../../ui/palette.ts';

/** Written for the request itself (its prompt's KV, copied whole). */
export const REL_OWN = 0;
/** The one page written on the rejected-yet-forwarded path: the one-token placeholder. */
export const REL_PLACEHOLDER = 1;
/** Held by the request, but its KV was written for another request (another tenant's, usually). */
export const REL_FOREIGN = 2;
/** Held by the request, never written since start-up or since it was cleared. */
export const REL_RESERVED = 3;
/** Not the request's page: drawn in neutral greys by page state. */
export const REL_OTHER = 4;

export type Relation = typeof REL_OWN | typeof REL_PLACEHOLDER | typeof REL_FOREIGN | typeof REL_RESERVED | typeof REL_OTHER;

export const RELATION_NAMES = ['own', 'placeholder', 'foreign', 'reserved', 'other'] as const;
export type RelationName = (typeof RELATION_NAMES)[number];

/** The request the pages are classified against. */
export interface Focus {
  req: number;
  /** The request's prefill computed one token for a longer prompt: its written page is the placeholder. */
  placeholder: boolean;
}

export function focusOf(run: RunSummary, req: number | null): Focus | null {
  if (req === null || req < 0 || req >= run.requests.count) return null;
  return { req, placeholder: run.requests.computedTokens[req] === 1 && run.requests.promptTokens[req]! > 1 };
}

export function relationOf(node: Pick<NodeSnapshot, 'owner' | 'writtenFor'>, p: number, focus: Focus): Relation {
  if (node.owner[p] !== focus.req) return REL_OTHER;
  return blockTableRelation(node, p, focus);
}

/** A page of the request's block table, whether or not it still holds it (the strip shows the table after the free too). */
export function blockTableRelation(node: Pick<NodeSnapshot, 'writtenFor'>, p: number, focus: Focus): Exclude<Relation, typeof REL_OTHER> {
  const writer = node.writtenFor[p]!;
  if (writer === focus.req) return focus.placeholder ? REL_PLACEHOLDER : REL_OWN;
  return writer >= 0 ? REL_FOREIGN : REL_RESERVED;
}

/**
 * Colours of the relations: Okabe–Ito hues, apart from each other for the common colour-vision
 * deficiencies, and never the only cue (foreign pages carry the stale pattern, reserved pages a dot,
 * the placeholder a magnifier ring).
 */
export const RELATION_RGB: Record<Exclude<Relation, typeof REL_OTHER>, [number, number, number]> = {
  [REL_OWN]: RELATION_COLOURS.own,
  [REL_PLACEHOLDER]: RELATION_COLOURS.placeholder,
  [REL_FOREIGN]: RELATION_COLOURS.foreign,
  [REL_RESERVED]: RELATION_COLOURS.reserved,
};

/** Pages not the request's, by state: greys, so the request's own pages stand out. */
export function otherGrey(state: number, dark: boolean): [number, number, number] {
  const scheme = dark ? 'dark' : 'light';
  if (state === PAGE_LIVE) return OTHER_GREYS.live[scheme];
  if (state === PAGE_STALE) return OTHER_GREYS.stale[scheme];
  if (state === PAGE_CLEARED) return OTHER_GREYS.cleared[scheme];
  return OTHER_GREYS.zero[scheme];
}

export const relationCss = (r: Exclude<Relation, typeof REL_OTHER>) => rgbCss(RELATION_RGB[r]);

export { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO };

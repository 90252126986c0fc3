/** How two decodes of the same input compare: the figures the "Compare backends" table shows. */
import type { GeneratedToken } from '../engine/index.ts';

/** Scores (probability, foreign share) may differ by at most this, relatively; tokens not at all. */
export const SCORE_TOLERANCE = 1e-4;

export interface Agreement {
  tokensEqual: boolean;
  /** Slot, page and writer of every token equal. */
  provenanceEqual: boolean;
  /** Largest |a − b| / max(|a|, |b|) over every token's probability and foreign share (0 when both are 0). */
  maxRelativeDiff: number;
  /** Index of the first token that differs in any way, or −1. */
  firstDifference: number;
}

export function relativeDiff(a: number, b: number): number {
  if (a === b) return 0;
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return Number.isFinite(scale) && scale > 0 ? Math.abs(a - b) / scale : Infinity;
}

export function compareTokens(reference: readonly GeneratedToken[], other: readonly GeneratedToken[]): Agreement {
  let tokensEqual = reference.length === other.length;
  let provenanceEqual = tokensEqual;
  let maxRelativeDiff = 0;
  let firstDifference = tokensEqual ? -1 : Math.min(reference.length, other.length);
  for (let i = 0; i < Math.min(reference.length, other.length); i++) {
    const a = reference[i]!;
    const b = other[i]!;
    const sameToken = a.token === b.token;
    const sameProvenance = a.slot === b.slot && a.page === b.page && a.writer === b.writer;
    const d = Math.max(relativeDiff(a.probability, b.probability), relativeDiff(a.foreignShare, b.foreignShare));
    if (!sameToken) tokensEqual = false;
    if (!sameProvenance) provenanceEqual = false;
    maxRelativeDiff = Math.max(maxRelativeDiff, d);
    if (firstDifference < 0 && (!sameToken || !sameProvenance || d > SCORE_TOLERANCE)) firstDifference = i;
  }
  return { tokensEqual, provenanceEqual, maxRelativeDiff, firstDifference };
}

export function agrees(a: Agreement): boolean {
  return a.tokensEqual && a.provenanceEqual && a.maxRelativeDiff <= SCORE_TOLERANCE;
}

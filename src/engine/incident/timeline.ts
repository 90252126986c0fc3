/**
 * The report's dates and times as the engine uses them. Each names its fact id (FACTS.md /
 * public/facts.json); a test checks they equal the facts file. Times are UTC; simulated time in the
 * incident replay is ms since WINDOW_START_MS.
 */

/** F2: number of affected responses the report counts. */
export const REPORTED_AFFECTED_RESPONSES = 155;

/** F2: the affected period runs from 27 Aug to 9 Sep 2026 (days; the replay covers both whole days). */
export const WINDOW_START_ISO = '2026-08-27T00:00:00Z';
export const WINDOW_LAST_DAY_ISO = '2026-09-09';
/** F7: the researcher's report (day only). */
export const RESEARCHER_REPORT_DAY_ISO = '2026-09-08';
/** F8: checks began "the next day" (day only). */
export const CHECKS_BEGIN_DAY_ISO = '2026-09-09';
/** F10: incident declared. */
export const DECLARED_ISO = '2026-09-09T13:22:00Z';
/** F11: model made private 38 minutes after F10; new requests then failed. */
export const PRIVATE_AFTER_MINUTES = 38;
export const PRIVATE_ISO = '2026-09-09T14:00:00Z';
/** F12: root cause identified. */
export const ROOT_CAUSE_ISO = '2026-09-09T14:35:00Z';
/** F13: public again, on the fixed deployment. */
export const PUBLIC_ISO = '2026-09-09T19:40:00Z';
/** F9: the two-account reproduction took under this many minutes. */
export const REPRODUCTION_UNDER_MINUTES = 25;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DAY_MS = 24 * HOUR;

export const WINDOW_START_MS = Date.parse(WINDOW_START_ISO);
const rel = (iso: string) => Date.parse(iso) - WINDOW_START_MS;

/** Offsets from the window start, in simulated ms. */
export const T_RESEARCHER_DAY = rel(`${RESEARCHER_REPORT_DAY_ISO}T00:00:00Z`);
export const T_CHECKS_DAY = rel(`${CHECKS_BEGIN_DAY_ISO}T00:00:00Z`);
export const T_DECLARED = rel(DECLARED_ISO);
export const T_PRIVATE = rel(PRIVATE_ISO);
export const T_ROOT_CAUSE = rel(ROOT_CAUSE_ISO);
export const T_PUBLIC = rel(PUBLIC_ISO);
/** End of the replayed window: 9 Sep 24:00 (exclusive). */
export const T_WINDOW_END = rel(`${WINDOW_LAST_DAY_ISO}T00:00:00Z`) + DAY_MS;

export function isoAt(t: number): string {
  return new Date(WINDOW_START_MS + t).toISOString().replace('.000Z', 'Z');
}

/** "09-09 13:22:05", compact for tables. */
export function shortTimeAt(t: number): string {
  return isoAt(t).slice(5, 19).replace('T', ' ');
}

export type Deployment = 'incident' | 'private' | 'fixed';

/** Which deployment served new requests at simulated time t (F11, F13). */
export function deploymentAt(t: number): Deployment {
  if (t < T_PRIVATE) return 'incident';
  if (t < T_PUBLIC) return 'private';
  return 'fixed';
}

/**
 * The report's milestones within the replayed window, by their key in public/facts.json (a test
 * checks each against the file): what a walkthrough chapter or a video names when it seeks.
 * Day-only facts are the start of their day.
 */
export const MILESTONE_T = {
  windowStart: 0,
  researcherReport: T_RESEARCHER_DAY,
  checksBegin: T_CHECKS_DAY,
  declared: T_DECLARED,
  private: T_PRIVATE,
  rootCause: T_ROOT_CAUSE,
  public: T_PUBLIC,
} as const;

export type MilestoneKey = keyof typeof MILESTONE_T;

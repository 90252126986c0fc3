/**
 * The report's figures the screen prints beside a catalogue label, each followed by its fact id. One
 * place, so that the test of cited figures (`views/shared/claims.test.ts`) reads the same pairs.
 */
export const SCREEN_FIGURES = [
  { label: 'screenReportCount', figure: 'affectedResponses' },
  { label: 'screenPrefillHolds', figure: 'prefillCapacityTokens' },
] as const;

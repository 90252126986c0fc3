/** Run key → file of each run the build computed (scripts/prebuiltRuns.ts defines it). */
declare const __PREBUILT_RUNS__: Record<string, string>;

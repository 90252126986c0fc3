/** The incident window: timeline constants (with fact ids), assumptions, traffic model, replay, seek. */
export * from './timeline.ts';
export * from './assumptions.ts';
export * from './traffic.ts';
export * from './pageTimeline.ts';
export * from './replay.ts';
export * from './seek.ts';

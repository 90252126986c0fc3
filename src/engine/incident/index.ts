/** The incident window: timeline constants (with fact ids), assumptions, traffic model, replay. */
export * from './timeline.ts';
export * from './assumptions.ts';
export * from './traffic.ts';
export * from './replay.ts';
export * from './shares.ts';

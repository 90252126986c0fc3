/** Exhaustive check of the prefill → decode handoff: a model, an explorer, the configurations. */
export * from './model.ts';
export * from './explore.ts';
export * from './configs.ts';
export * from './check.ts';

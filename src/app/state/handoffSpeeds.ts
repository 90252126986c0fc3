/** The speeds the handoff clock offers (1: the pace each step is given in moment/handoff.ts). */
export const HANDOFF_SPEEDS = [0.25, 0.5, 1, 1.5, 2] as const;

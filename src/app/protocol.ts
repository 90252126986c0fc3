/** Messages between the page and the engine worker. */
import type { ConfigOverrides, Counters, MatrixResult } from '../engine/index.ts';

export type WorkerRequest =
  | { kind: 'simulate'; id: number; scenario: 'demo' | 'matrix'; overrides: ConfigOverrides }
  | { kind: 'matrix'; id: number };

export interface LeakSummary {
  id: string;
  tenant: string;
  promptTokens: number;
  computedTokens: number;
  status: number;
  dataOf: string[];
  canaries: string[];
  text: string;
  expectedText: string | null;
}

export interface SimulationSummary {
  traceName: string;
  counters: Counters;
  leaks: LeakSummary[];
  eventLogHash: string;
  events: number;
  elapsedMs: number;
}

export type WorkerResponse =
  | { kind: 'simulated'; id: number; summary: SimulationSummary }
  | { kind: 'matrix'; id: number; rows: MatrixResult[]; elapsedMs: number }
  | { kind: 'error'; id: number; message: string };

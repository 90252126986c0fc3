/** The run worker's protocol, declared once: a run with its progress, one request's detail, the matrix. */
import type { EngineEvent, MatrixResult, ResponseRecord, RunProgress, RunResult } from '../../engine/index.ts';
import type { RunRequest } from '../../engine/runs/index.ts';
import type { Method } from './rpc.ts';

/** A finished run as the worker hands it over: typed arrays transferred, the rest small. */
export type RunTransfer = Omit<RunResult, 'details'> & { elapsedMs: number };

export interface RequestDetailReply {
  events: EngineEvent[];
  response: ResponseRecord | null;
  words: string[];
}

/**
 * A run to compute. `weightsUrl`: where the trained transformer's weights are on this site (an
 * absolute URL of the page's own origin), fetched by the worker when the run's decoder is the
 * transformer; the page never asks another origin.
 */
export interface RunCall {
  request: RunRequest;
  weightsUrl: string;
}

export type RunProtocol = {
  run: Method<RunCall, RunTransfer, RunProgress>;
  /** One request's events and response, from the run this worker last finished. */
  detail: Method<{ req: number }, RequestDetailReply>;
  matrix: Method<null, { rows: MatrixResult[]; elapsedMs: number }>;
};

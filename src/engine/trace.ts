/** A workload: who sends what, when. The JSON trace format documented in the README. */
import type { Topic } from './core/vocab.ts';

export interface TenantSpec {
  /** Lower-case name; also the word the tenant's records mention and its canary's suffix. */
  name: string;
  topic?: Topic;
  /** Whether the tenant's documents carry its canary marker. Default true. */
  canary?: boolean;
  /**
   * Place the marker after every mention of the tenant's name too, not only at the end of each
   * record: an answer that copies another tenant's sentence then carries that tenant's marker, even
   * when the requester's own leftovers dominate the record endings. Default false.
   */
  canaryAtMentions?: boolean;
  /** Replaces the tenant's generated document: prompts are cut from this text, cycled. */
  text?: string;
}

export interface TraceRequest {
  id?: string;
  /** Arrival, in ms from the start of the trace. */
  at: number;
  tenant: string;
  promptTokens: number;
  /** The prompt's words (cycled to promptTokens); default: cut from the tenant's document. */
  text?: string;
  /** Where in the tenant's document the prompt starts; default: drawn from the seed. */
  offset?: number;
  outputTokens?: number;
  /**
   * The `max_new_tokens` the request declares, which SGLang's tokenizer adds to the prompt in its
   * context check; null: none declared. Default: its output tokens.
   */
  maxNewTokens?: number | null;
  /**
   * When the client goes away, in ms from the start of the trace (at or after `at`): decode aborts
   * the request there, wherever it is, and answers 499. Default: never.
   */
  cancelAt?: number;
}

export interface Trace {
  version: 1;
  name?: string;
  /** ISO time of `at = 0`, for display only. */
  startTime?: string;
  tenants: TenantSpec[];
  requests: TraceRequest[];
}

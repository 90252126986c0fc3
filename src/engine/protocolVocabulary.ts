/**
 * The words the registry of switches (switches.ts) and the protocol model (protocol/) share: the
 * properties the model checks and the parts of a handoff design a switch can set. They sit here,
 * below both, so that the registry can name a switch's protocol counterpart without importing the
 * model that reads the registry's pool rules.
 */
import type { Mitigations, RejectPath, TokenizerRule } from './config.ts';

/** The properties the protocol model checks (protocol/explore.ts says what each means). */
export type PropertyId = 'confidentiality' | 'integrity' | 'exclusiveOwnership';

/**
 * `buggy`: over-limit prompts are marked aborted, their input replaced by one placeholder token, and
 * still handed off (the incident). `fixed`: retired at admission on both sides, before any
 * reservation (PR #38935). With the `retireWithoutSend` mitigation the buggy path's prefill computes
 * the placeholder, then retires the result without any KV send and reports Failed (PR #36988).
 */
export type ProtocolRejectPath = RejectPath;

export interface RequestSpec {
  /** A single capital letter: labels and canonical keys rely on it. */
  name: string;
  tenant: number;
  /** Prompt length in whole pages. */
  pages: number;
}

/** A handoff design the protocol model explores: pools, requests, defects and mitigations. */
export interface ProtocolDesign {
  rejectPath: ProtocolRejectPath;
  /** The advertised context; the tokenizer's rule decides what it lets through. */
  advertisedPages: number;
  /**
   * `report`: the tokenizer refuses prompts longer than the context; `sglang`: at or over it (output
   * tokens, under a page here, are abstracted away). Default `report`.
   */
  tokenizerRule?: TokenizerRule;
  /**
   * Pages prefill computes and RDMA-writes per transition: 1 (the default) is chunked prefill with
   * one-page chunks, the finest interleaving; `whole` computes the prompt and sends every page in
   * one step, as the engine does without chunked prefill. The placeholder is one chunk either way.
   */
  chunkPages?: number | 'whole';
  /** Prefill pool; also its input limit (the report's rule, in pages). */
  prefillPages: number;
  decodePages: number;
  requests: RequestSpec[];
  mitigations: Mitigations;
  /**
   * Clients may cancel while a transfer is in flight (the page-reuse race of SGLang PR #24578, closed). Without the
   * `fenceLateWrites` mitigation decode frees the pages at once and tells prefill asynchronously,
   * so writes prefill posts before it hears land in pages that may already be someone else's; with
   * it, decode keeps the pages until prefill confirms it will write no more (or its done arrives).
   */
  decodeAbort: boolean;
  /**
   * `sorted` (default): lowest free page first. `staged`: SGLang's free list in PD mode, in pages:
   * freed pages wait, pages come from the front of the current list, which takes in the waiting ones
   * and is sorted when an allocation finds it shorter than asked (a simplification of SGLang's rule,
   * which the engine's KvPool follows: docs/MODEL.md).
   */
  freeList?: 'sorted' | 'staged';
}

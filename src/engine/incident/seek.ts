/**
 * stateAt(t) over the whole window: the deployment serving at t, the page state of its nodes, the
 * requests in flight and the reads that crossed tenants. Built from a replay's typed arrays only,
 * so a Worker can transfer them and the page can seek without asking the Worker again.
 */
import { PhaseSeeker, type NodeLayout, type PageArrays, type PhaseTimelineData } from './pageTimeline.ts';
import { PRIVATE_WINDOW_STATUS, type ReadTable, type RequestTable } from './replay.ts';
import { deploymentAt, type Deployment } from './timeline.ts';

export interface TimelineSource {
  requests: RequestTable;
  reads: ReadTable;
  timelines: { incident: PhaseTimelineData; fixed: PhaseTimelineData };
}

export interface WindowState {
  t: number;
  deployment: Deployment;
  /** Nodes of the deployment whose memory is shown (the incident one until 19:40, then the fixed one). */
  nodes: NodeLayout[];
  /** Page arrays of those nodes; working arrays of the seeker, valid until the next stateAt. */
  pages: PageArrays;
  /** Requests arrived and not yet answered at t, by index. */
  inFlight: Int32Array;
  /** Decode reads so far, and how many of them read another tenant's pages / output drew on them. */
  readsSoFar: number;
  foreignPageReadsSoFar: number;
  outputCrossedSoFar: number;
  /** Reads (indices into ReadTable) whose request is still in flight at t and read another tenant's pages. */
  crossingNow: Int32Array;
}

export class IncidentTimeline {
  private readonly incident: PhaseSeeker;
  private readonly fixed: PhaseSeeker;
  /** Request indices sorted by arrival (the trace is sorted already; kept explicit). */
  private readonly maxInFlightMs: number;
  private readonly foreignPrefix: Int32Array;
  private readonly crossedPrefix: Int32Array;

  constructor(readonly source: TimelineSource) {
    this.incident = new PhaseSeeker(source.timelines.incident);
    this.fixed = new PhaseSeeker(source.timelines.fixed);
    const r = source.requests;
    let maxMs = 0;
    for (let i = 0; i < r.count; i++) {
      if (i > 0 && r.arrivedAt[i]! < r.arrivedAt[i - 1]!) throw new Error('timeline: requests must be sorted by arrival');
      const d = r.finishedAt[i]! - r.arrivedAt[i]!;
      if (d > maxMs) maxMs = d;
    }
    this.maxInFlightMs = maxMs;
    const reads = source.reads;
    this.foreignPrefix = new Int32Array(reads.count + 1);
    this.crossedPrefix = new Int32Array(reads.count + 1);
    for (let i = 0; i < reads.count; i++) {
      if (i > 0 && reads.t[i]! < reads.t[i - 1]!) throw new Error('timeline: reads must be in time order');
      this.foreignPrefix[i + 1] = this.foreignPrefix[i]! + (reads.foreignPages[i]! > 0 ? 1 : 0);
      this.crossedPrefix[i + 1] = this.crossedPrefix[i]! + reads.outputCrossed[i]!;
    }
  }

  /** Number of entries of a sorted array at or before t. */
  private static countUntil(times: Float64Array, n: number, t: number): number {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  stateAt(t: number, fromStart = false): WindowState {
    const deployment = deploymentAt(t);
    const seeker = deployment === 'fixed' ? this.fixed : this.incident;
    const pages = fromStart ? seeker.atFromStart(t) : seeker.at(t);

    const r = this.source.requests;
    const arrived = IncidentTimeline.countUntil(r.arrivedAt, r.count, t);
    const inFlight: number[] = [];
    for (let i = arrived - 1; i >= 0 && r.arrivedAt[i]! >= t - this.maxInFlightMs; i--) {
      if (r.status[i] === PRIVATE_WINDOW_STATUS) continue;
      if (!(r.finishedAt[i]! <= t)) inFlight.push(i);
    }
    inFlight.reverse();

    const reads = this.source.reads;
    const readsSoFar = IncidentTimeline.countUntil(reads.t, reads.count, t);
    const crossingNow: number[] = [];
    for (let k = readsSoFar - 1; k >= 0 && reads.t[k]! >= t - this.maxInFlightMs; k--) {
      if (reads.foreignPages[k]! > 0 && !(r.finishedAt[reads.req[k]!]! <= t)) crossingNow.push(k);
    }
    crossingNow.reverse();
    return {
      t,
      deployment,
      nodes: seeker.data.nodes,
      pages,
      inFlight: Int32Array.from(inFlight),
      readsSoFar,
      foreignPageReadsSoFar: this.foreignPrefix[readsSoFar]!,
      outputCrossedSoFar: this.crossedPrefix[readsSoFar]!,
      crossingNow: Int32Array.from(crossingNow),
    };
  }
}

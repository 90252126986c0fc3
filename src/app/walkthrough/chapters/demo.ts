/**
 * Named moments of the demo trace (engine/scenarios.ts), taken from its requests' events as the
 * engine logs them: a chapter never retypes a time.
 */
import { DEMO_REQUESTS } from '../../../engine/scenarios.ts';
import type { Instant } from './steps.ts';

export const OVER_LONG = DEMO_REQUESTS.overLong;
/**
 * A request served as it should be, before the over-long one arrives: shown beside it, it leaves the
 * leak counter at 0 (a request served after it, the demo's short one, would show delta's leak counted
 * a chapter before the question about it).
 */
export const SERVED = DEMO_REQUESTS.lastWarm;

/**
 * Every warm-up request has its pages reserved, the first ones are already done, and each of the three
 * tenants has written KV: the third's first request has just reached decode. (At the last one's
 * arrival the third had reserved pages but written none, while chapter 1 said three customers wrote.)
 */
export const WARM: Instant = { request: DEMO_REQUESTS.thirdTenantFirst, event: 'transfer-done' };
/** The last warm-up request has answered: every warm page is free again. */
export const IDLE: Instant = { request: DEMO_REQUESTS.lastWarm, event: 'response' };
export const BEFORE_ARRIVAL: Instant = { request: OVER_LONG, event: 'arrive', offsetMs: -1 };
export const ARRIVAL: Instant = { request: OVER_LONG, event: 'arrive' };
export const COMPUTED: Instant = { request: OVER_LONG, event: 'prefill-compute' };
export const TRANSFER_DONE: Instant = { request: OVER_LONG, event: 'transfer-done' };
export const ANSWERED: Instant = { request: OVER_LONG, event: 'response' };

/**
 * d3-zoom, on its own: the timeline chart loads it after its first draw (or at the first gesture
 * that needs it), so that d3-zoom and what it brings (transitions, drag, timers) are not part of
 * the first screen's code.
 */
export { zoom, zoomIdentity } from 'd3';

/**
 * The one frame clock of the page (as Perfetto's raf_scheduler is for its UI): a single
 * requestAnimationFrame loop runs every per-frame task — playback, walkthrough tweens, redraws —
 * in one place, so two loops never both write the time, and everything that moves moves on the same
 * frame. It runs only while some task is registered.
 *
 * Time comes from the frame's timestamp; a test or the video renderer that fakes
 * requestAnimationFrame and performance.now drives every animation through this one door.
 */

/** Returns false to stop being called. */
export type FrameTask = (now: number, dt: number) => boolean | void;

const tasks = new Set<FrameTask>();
const once = new Map<string, (now: number) => void>();
let handle = 0;
let last: number | null = null;
let frameSeq = 0;
/** Driven: the video renderer hands out the frames (advanceFrame); no requestAnimationFrame runs. */
let driven = false;

function tick(now: number): void {
  handle = 0;
  const dt = last === null ? 0 : now - last;
  last = now;
  for (const task of [...tasks]) if (task(now, dt) === false) tasks.delete(task);
  const pending = [...once.values()];
  once.clear();
  for (const f of pending) f(now);
  schedule();
}

function schedule(): void {
  if (handle !== 0 || driven) return;
  if (tasks.size === 0 && once.size === 0) {
    last = null;
    return;
  }
  handle = requestAnimationFrame(tick);
}

/** Calls `task` on every frame until it returns false or the returned function is called. */
export function everyFrame(task: FrameTask): () => void {
  tasks.add(task);
  schedule();
  return () => {
    tasks.delete(task);
  };
}

/** Calls `f` once on the next frame; a later request with the same key replaces it. */
export function onNextFrame(key: string, f: (now: number) => void): void {
  once.set(key, f);
  schedule();
}

/** The next frame's timestamp. */
export function nextFrame(): Promise<number> {
  return new Promise((resolve) => {
    const key = `frame:${frameSeq++}`;
    onNextFrame(key, resolve);
  });
}

/**
 * Hands the clock to the video renderer: from now on frames come only from `advanceFrame`, at the
 * times it gives (the video's own time), so nothing on the page moves between two captured frames.
 */
export function driveClock(): void {
  driven = true;
  if (handle !== 0) cancelAnimationFrame(handle);
  handle = 0;
}

/** Driven mode: runs one frame at `now` (ms of the video), then every task registered for the next. */
export function advanceFrame(now: number): void {
  if (!driven) throw new Error('advanceFrame: the frame clock is not driven (call driveClock first)');
  tick(now);
}

export function isDriven(): boolean {
  return driven;
}

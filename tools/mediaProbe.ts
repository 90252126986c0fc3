/**
 * Reading a rendered explainer back with ffprobe and ffmpeg's filters: what the recorder's test
 * checks on two chapters and what `npm run record:measure` reports on a whole render.
 */
import { execFileSync } from 'node:child_process';

export interface Cue {
  start: number;
  end: number;
  text: string;
}

/** The cues of a WebVTT file (times in seconds). */
export function parseVtt(text: string): Cue[] {
  const seconds = (s: string) => {
    const [h, m, rest] = s.split(':') as [string, string, string];
    return Number(h) * 3600 + Number(m) * 60 + Number(rest);
  };
  return text
    .split(/\n\n+/)
    .slice(1)
    .filter((b) => b.includes('-->'))
    .map((block) => {
      const lines = block.trim().split('\n');
      const timing = lines.find((l) => l.includes('-->'))!;
      const [a, b] = timing.split(' --> ') as [string, string];
      return { start: seconds(a), end: seconds(b.split(' ')[0]!), text: lines.slice(lines.indexOf(timing) + 1).join('\n') };
    });
}

export const probe = (file: string, ...args: string[]): any => JSON.parse(execFileSync('ffprobe', ['-v', 'error', ...args, '-of', 'json', file], { encoding: 'utf8', maxBuffer: 256 << 20 }));

/** What one of ffmpeg's detection filters logs, as [start, end] pairs in seconds. */
export function detect(file: string, filter: string, startKey: string, endKey: string): [number, number][] {
  // The filters log to stderr.
  const r = (execFileSync('sh', ['-c', `ffmpeg -hide_banner -nostats -i '${file}' -an -sn -vf '${filter}' -f null - 2>&1`], { encoding: 'utf8', maxBuffer: 256 << 20 }) as string).split('\n');
  const starts = r.flatMap((l) => [...l.matchAll(new RegExp(`${startKey}[:=]\\s*([\\d.]+)`, 'g'))].map((m) => Number(m[1])));
  const ends = r.flatMap((l) => [...l.matchAll(new RegExp(`${endKey}[:=]\\s*([\\d.]+)`, 'g'))].map((m) => Number(m[1])));
  return starts.map((s, i) => [s, ends[i] ?? Number.POSITIVE_INFINITY]);
}

/** MD5 of decoded frames by index, decoding every stored frame in order (constant frame rate: index = time × fps). */
export function frameHashes(file: string, frames: number[]): Map<number, string> {
  const select = frames.map((n) => `eq(n\\,${n})`).join('+');
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-an', '-sn', '-vf', `select='${select}'`, '-fps_mode', 'passthrough', '-f', 'framemd5', '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const hashes = out.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(',').map((x) => x.trim()).pop()!);
  return new Map(frames.map((n, i) => [n, hashes[i]!]));
}

/** The loudest moment of a file's audio, in dB (silence is -91). */
export function maxVolume(file: string): number {
  const out = execFileSync('sh', ['-c', `ffmpeg -hide_banner -nostats -i '${file}' -vn -sn -af volumedetect -f null - 2>&1`], { encoding: 'utf8' });
  return Number(/max_volume: (-?[\d.]+) dB/.exec(out)?.[1]);
}

/** The times of a video's keyframes, in seconds. */
export function keyframeTimes(file: string): number[] {
  return (probe(file, '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,flags').packets as { pts_time: string; flags: string }[])
    .filter((p) => p.flags.startsWith('K'))
    .map((p) => Number(p.pts_time));
}

/** What the recorder writes beside each video (chapters.<lang>.json). */
export interface Marks {
  lang: string;
  fps: number;
  frames: number;
  durationS: number;
  chapters: { n: number; id: string; title: string; start: number; end: number; startFrame: number }[];
  predictBeats: { start: number; end: number }[];
  /** Each moving beat: when it starts and how long after the start of the sentence on screen (s). Absent from older renders. */
  motionLeads?: { chapter: number; at: number; lead: number }[];
  /** Each frame whose picture reaches under the caption band: when, how many parts, the first named. Absent from older renders. */
  underBand?: { at: number; count: number; first: string }[];
}

/** Integrated loudness (LUFS) and true peak (dBTP) of a file's audio, by ffmpeg's EBU R 128 meter. */
export function loudness(file: string): { integrated: number; truePeak: number } {
  const out = execFileSync('sh', ['-c', `ffmpeg -hide_banner -nostats -i '${file}' -vn -sn -af ebur128=peak=true -f null - 2>&1`], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const summary = out.slice(out.lastIndexOf('Summary:'));
  return { integrated: Number(/I:\s+(-?[\d.]+) LUFS/.exec(summary)?.[1]), truePeak: Number(/Peak:\s+(-?[\d.]+) dBFS/.exec(summary)?.[1]) };
}

/**
 * Where the picture moves: the video sampled every 0.2 s above `bandTop` (the caption band below it
 * is left out: its words light as they are said), each sample against the one before. Returns, per
 * sample, its time and whether some pixel's luma changed by more than `threshold` (of 255; the
 * encoder's noise stays under it).
 */
export function motionSamples(file: string, bandTop: number, threshold = 24): { t: number; moved: boolean }[] {
  const vf = `crop=iw:${bandTop}:0:0,fps=5,tblend=all_mode=difference,signalstats,metadata=print:key=lavfi.signalstats.YMAX`;
  const out = execFileSync('sh', ['-c', `ffmpeg -hide_banner -nostats -i '${file}' -an -sn -vf '${vf}' -f null - 2>&1`], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const samples: { t: number; moved: boolean }[] = [];
  let t = 0;
  for (const line of out.split('\n')) {
    const time = /pts_time:([\d.]+)/.exec(line);
    if (time) t = Number(time[1]);
    const y = /lavfi\.signalstats\.YMAX=([\d.]+)/.exec(line);
    if (y) samples.push({ t, moved: Number(y[1]) > threshold });
  }
  return samples;
}

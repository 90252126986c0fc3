/** The recorder's text outputs: WebVTT cues and ffmpeg's chapter metadata. */

export interface Cue {
  start: number;
  end: number;
  text: string;
  /** WebVTT cue settings, e.g. `line:-1` for the bottom line. */
  settings?: string;
}

export const vttTime = (s: number) => {
  const ms = Math.max(0, Math.round(s * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sec = Math.floor((ms % 60_000) / 1000);
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`;
};

export function toVtt(cues: readonly Cue[]): string {
  return `WEBVTT\n\n${cues.map((c, i) => `${i + 1}\n${vttTime(c.start)} --> ${vttTime(c.end)}${c.settings ? ` ${c.settings}` : ''}\n${c.text}\n`).join('\n')}`;
}

const escapeMeta = (s: string) => s.replace(/[=;#\\\n]/g, (c) => `\\${c}`);

/** ffmpeg's FFMETADATA1 chapters, in frames of 1/fps s. */
export function chaptersMeta(chapters: readonly { start: number; end: number; title: string }[], fps: number): string {
  return `;FFMETADATA1\n${chapters.map((c) => `[CHAPTER]\nTIMEBASE=1/${fps}\nSTART=${Math.round(c.start * fps)}\nEND=${Math.round(c.end * fps)}\ntitle=${escapeMeta(c.title)}\n`).join('')}`;
}

/**
 * The narration: every cue spoken by espeak-ng (Debian's, offline), one WAV per cue, cached by its
 * text; then one track laid out on the video's frames, each cue at its first frame.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Language } from '../../src/engine/switches.ts';

/** Voice and speed per language: British English at 160 words a minute, French at 150. */
export const VOICES: Record<Language, { voice: string; wpm: number }> = {
  en: { voice: 'en-gb', wpm: 160 },
  fr: { voice: 'fr-fr', wpm: 150 },
};

export const ESPEAK = process.env.ESPEAK ?? '/usr/bin/espeak-ng';

const EN_UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const EN_TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty'];
const FR_UNITS = ['zéro', 'une', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf', 'dix', 'onze', 'douze', 'treize', 'quatorze', 'quinze', 'seize', 'dix-sept', 'dix-huit', 'dix-neuf'];
const FR_TENS = ['', '', 'vingt', 'trente', 'quarante', 'cinquante'];

function wordsUnder60(n: number, lang: Language): string {
  const [units, tens] = lang === 'fr' ? [FR_UNITS, FR_TENS] : [EN_UNITS, EN_TENS];
  if (n < 20) return units[n]!;
  const t = tens[Math.floor(n / 10)]!;
  const u = n % 10;
  if (u === 0) return t;
  if (lang === 'fr') return u === 1 ? `${t} et une` : `${t}-${units[u]}`;
  return `${t}-${units[u]}`;
}

/**
 * A clock time as it is said: "14:00" is "fourteen hundred", "14:35" "fourteen thirty-five";
 * in French « 14 h 35 » or "14:35" is « quatorze heures trente-cinq ». The voice reads digits and
 * colons as numbers and punctuation otherwise.
 */
export function spokenTime(hours: number, minutes: number, lang: Language): string {
  if (lang === 'fr') {
    const h = hours === 1 ? 'une heure' : `${wordsUnder60(hours, 'fr').replace(/^une$/, 'une')} heures`;
    return minutes === 0 ? h : `${h} ${wordsUnder60(minutes, 'fr')}`;
  }
  const h = wordsUnder60(hours, 'en');
  if (minutes === 0) return `${h} hundred`;
  return minutes < 10 ? `${h} oh ${wordsUnder60(minutes, 'en')}` : `${h} ${wordsUnder60(minutes, 'en')}`;
}

/** Words espeak-ng says badly, respelt as it should say them (the screen keeps the written word). */
const RESPELL: Record<Language, [RegExp, string][]> = {
  en: [[/\bSGLang\b/g, 'S G Lang'], [/\bKV\b/g, 'K V'], [/\bRDMA\b/g, 'R D M A']],
  fr: [[/\bSGLang\b/g, 'S G Lang'], [/\bprefill\b/gi, 'pri-fil'], [/\bKV\b/g, 'K V'], [/\bRDMA\b/g, 'R D M A'], [/\bHTTP\b/g, 'H T T P']],
};

/** What is said for a cue: its text without the fact ids in parentheses (shown, not read out), times as times. */
export function spokenText(text: string, lang: Language = 'en'): string {
  let said = text
    .replace(/\s*\((?:[FBAN]\d+(?:,\s*)?)+\)/g, '')
    .replace(/[\u202f\u00a0]/g, ' ')
    .replace(/\b([01]?\d|2[0-3])(?::| h )([0-5]\d)\b/g, (_m, h: string, m: string) => spokenTime(Number(h), Number(m), lang));
  for (const [re, to] of RESPELL[lang]) said = said.replace(re, to);
  return said.replace(/\s+/g, ' ').trim();
}

export interface Pcm {
  rate: number;
  samples: Int16Array;
}

/** Reads a 16-bit mono PCM WAV (what espeak-ng writes). */
export function readWav(buf: Buffer): Pcm {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let off = 12;
  let rate = 0;
  let channels = 0;
  let bits = 0;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    let size = buf.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(body + 2);
      rate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (channels !== 1 || bits !== 16) throw new Error(`WAV: expected 16-bit mono, got ${bits}-bit ×${channels}`);
      // espeak-ng writing to a file may leave the data size at its placeholder: take what is there.
      if (size === 0 || body + size > buf.length) size = buf.length - body;
      const samples = new Int16Array(Math.floor(size / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = buf.readInt16LE(body + i * 2);
      return { rate, samples };
    }
    off = body + size + (size % 2);
  }
  throw new Error('WAV: no data chunk');
}

export function writeWav(pcm: Pcm): Buffer {
  const data = Buffer.alloc(pcm.samples.length * 2);
  for (let i = 0; i < pcm.samples.length; i++) data.writeInt16LE(pcm.samples[i]!, i * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(pcm.rate, 24);
  h.writeUInt32LE(pcm.rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

/** Trailing silence espeak-ng leaves is not speech: trim it so cue timings follow the voice. */
function trimTail(pcm: Pcm): Pcm {
  let end = pcm.samples.length;
  while (end > 0 && Math.abs(pcm.samples[end - 1]!) < 64) end--;
  return { rate: pcm.rate, samples: pcm.samples.subarray(0, Math.min(pcm.samples.length, end + Math.round(pcm.rate * 0.05))) };
}

const cacheDir = join(tmpdir(), 'stale-pages-voice');

/** Speaks one text; returns its samples (cached on disk by voice and text). */
export function speak(text: string, lang: Language): Pcm {
  const { voice, wpm } = VOICES[lang];
  const said = spokenText(text, lang);
  mkdirSync(cacheDir, { recursive: true });
  const file = join(cacheDir, `${createHash('sha256').update(`${voice}|${wpm}|${said}`).digest('hex').slice(0, 24)}.wav`);
  if (!existsSync(file)) execFileSync(ESPEAK, ['-v', voice, '-s', String(wpm), '-w', file, '--', said]);
  return trimTail(readWav(readFileSync(file)));
}

export const msOf = (pcm: Pcm) => (pcm.samples.length / pcm.rate) * 1000;

/** One track of `frames` frames with each cue's speech starting at its first frame. */
export function narrationTrack(cues: readonly { from: number; pcm: Pcm }[], frames: number, fps: number, out: string): void {
  const rate = cues[0]?.pcm.rate ?? 22050;
  const samples = new Int16Array(Math.ceil((frames / fps) * rate));
  for (const c of cues) {
    if (c.pcm.rate !== rate) throw new Error('narration: cues at different sample rates');
    const at = Math.round((c.from / fps) * rate);
    samples.set(c.pcm.samples.subarray(0, Math.max(0, samples.length - at)), at);
  }
  writeFileSync(out, writeWav({ rate, samples }));
  normaliseLoudness(out);
}

/** The loudness the narration is brought to (EBU R 128 for streaming): integrated −16 LUFS, true peak ≤ −1.5 dBTP. */
export const LOUDNESS = { integrated: -16, truePeak: -1.5, range: 11 };

/**
 * Two-pass loudnorm (ffmpeg's EBU R 128 filter): the first pass measures the track, the second brings
 * it to the target with those figures (linear, so the voice's dynamics are kept), at the same rate.
 */
export function normaliseLoudness(wav: string): void {
  const { integrated: I, truePeak: TP, range: LRA } = LOUDNESS;
  const first = execFileSync('sh', ['-c', `ffmpeg -hide_banner -nostats -i '${wav}' -af loudnorm=I=${I}:TP=${TP}:LRA=${LRA}:print_format=json -f null - 2>&1`], { encoding: 'utf8' });
  const json = JSON.parse(first.slice(first.lastIndexOf('{'), first.lastIndexOf('}') + 1)) as Record<string, string>;
  const rate = readWav(readFileSync(wav)).rate;
  const tmp = `${wav}.norm.wav`;
  const measured = `measured_I=${json.input_i}:measured_TP=${json.input_tp}:measured_LRA=${json.input_lra}:measured_thresh=${json.input_thresh}:offset=${json.target_offset}`;
  execFileSync('ffmpeg', ['-y', '-hide_banner', '-loglevel', 'error', '-i', wav, '-af', `loudnorm=I=${I}:TP=${TP}:LRA=${LRA}:${measured}:linear=true,aresample=${rate}`, '-ac', '1', '-c:a', 'pcm_s16le', tmp]);
  writeFileSync(wav, readFileSync(tmp));
}

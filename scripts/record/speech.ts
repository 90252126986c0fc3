/**
 * The narration: every cue spoken offline by Debian's voices, one WAV per cue, cached by its text;
 * then one track laid out on the video's frames, each cue at its first frame. English is festival's
 * HTS voice (cmu_us_slt_arctic_hts, package festvox-us-slt-hts), a statistical voice much closer to
 * speech than espeak-ng's formant one; French stays on espeak-ng (no French voice for festival is
 * packaged), with the words it says badly respelt for it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Language } from '../../src/engine/switches.ts';

/** A voice: festival's HTS voice (its own pace), or espeak-ng's at a speed in words a minute. */
export type Voice = { engine: 'festival'; voice: string } | { engine: 'espeak-ng'; voice: string; wpm: number };

/** English: festival's US female HTS voice; French: espeak-ng's, at 150 words a minute. */
export const VOICES: Record<Language, Voice> = {
  en: { engine: 'festival', voice: 'cmu_us_slt_arctic_hts' },
  fr: { engine: 'espeak-ng', voice: 'fr-fr', wpm: 150 },
};

export const ESPEAK = process.env.ESPEAK ?? '/usr/bin/espeak-ng';
export const TEXT2WAVE = process.env.TEXT2WAVE ?? '/usr/bin/text2wave';
const FESTIVAL_VOICES = '/usr/share/festival/voices';

/** What to install when a voice is missing (Debian packages, as `.ci/run` installs them). */
const PACKAGES: Record<Voice['engine'], string> = { festival: 'festival festvox-us-slt-hts', 'espeak-ng': 'espeak-ng' };

/**
 * Why the voices of these languages cannot speak here, or null when they can: the program and, for
 * festival, the voice's folder must be there.
 */
export function missingVoices(langs: readonly Language[]): string | null {
  const problems: string[] = [];
  for (const lang of langs) {
    const v = VOICES[lang];
    if (v.engine === 'espeak-ng') {
      if (!existsSync(ESPEAK)) problems.push(`${lang}: espeak-ng is not at ${ESPEAK} (apt-get install ${PACKAGES['espeak-ng']})`);
    } else {
      const found = existsSync(FESTIVAL_VOICES) && execFileSync('find', [FESTIVAL_VOICES, '-maxdepth', '2', '-name', v.voice], { encoding: 'utf8' }).trim() !== '';
      if (!existsSync(TEXT2WAVE)) problems.push(`${lang}: festival's text2wave is not at ${TEXT2WAVE} (apt-get install ${PACKAGES.festival})`);
      else if (!found) problems.push(`${lang}: festival has no voice ${v.voice} under ${FESTIVAL_VOICES} (apt-get install ${PACKAGES.festival})`);
    }
  }
  return problems.length ? `the narration's voices are missing: ${problems.join('; ')}` : null;
}

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

/**
 * Words the voices say badly, respelt as they should sound (the screen keeps the written word):
 * letters said one by one, names said as their owners say them, English words in the French voice
 * spelt the French way.
 */
const RESPELL: Record<Language, [RegExp, string][]> = {
  en: [[/\bSGLang\b/g, 'S G Lang'], [/\bKV\b/g, 'K V'], [/\bRDMA\b/g, 'R D M A'], [/\bGLM\b/g, 'G L M'], [/\bKnostic\b/g, 'Nostic'], [/\bHackerOne\b/g, 'Hacker One'], [/\bZ\.ai\b/g, 'Z dot A I']],
  fr: [
    [/\bSGLang\b/g, 'S G Lang'],
    [/\bprefill\b/gi, 'pri-fil'],
    [/\bdecode\b/gi, 'di-caude'],
    [/\bKV\b/g, 'K V'],
    [/\bRDMA\b/g, 'R D M A'],
    [/\bHTTP\b/g, 'H T T P'],
    [/\bGLM\b/g, 'G L M'],
    [/\bUTC\b/g, 'U T C'],
    [/\bCloudflare\b/g, 'Claoude-flère'],
    [/\bHackerOne\b/g, 'Hackeur-ouane'],
    [/\bKnostic\b/g, 'Nostique'],
    [/\bWorkers AI\b/g, 'Weurkeurze A I'],
    [/\bcanary\b/gi, 'canari'],
    [/\bZ\.ai\b/g, 'Z point A I'],
  ],
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

/** Reads a 16-bit mono PCM WAV (what espeak-ng and festival write). */
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

/** Trailing silence a voice leaves is not speech: trim it so cue timings follow the voice. */
function trimTail(pcm: Pcm): Pcm {
  let end = pcm.samples.length;
  while (end > 0 && Math.abs(pcm.samples[end - 1]!) < 64) end--;
  return { rate: pcm.rate, samples: pcm.samples.subarray(0, Math.min(pcm.samples.length, end + Math.round(pcm.rate * 0.05))) };
}

const cacheDir = join(tmpdir(), 'stale-pages-voice');

/** Festival reads ASCII best: typographic quotes and dashes as their plain forms. */
const festivalText = (said: string) => said.replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d«»]/g, '"').replace(/[\u2013\u2014]/g, ', ').replace(/\u2026/g, '...');

/** Speaks one text; returns its samples (cached on disk by voice and text). */
export function speak(text: string, lang: Language): Pcm {
  const v = VOICES[lang];
  const said = spokenText(text, lang);
  mkdirSync(cacheDir, { recursive: true });
  const id = v.engine === 'festival' ? `festival|${v.voice}` : `${v.voice}|${v.wpm}`;
  const file = join(cacheDir, `${createHash('sha256').update(`${id}|${said}`).digest('hex').slice(0, 24)}.wav`);
  if (!existsSync(file)) {
    if (v.engine === 'festival') {
      const input = `${file}.txt`;
      writeFileSync(input, festivalText(said));
      execFileSync(TEXT2WAVE, ['-eval', `(voice_${v.voice})`, '-o', file, input]);
    } else execFileSync(ESPEAK, ['-v', v.voice, '-s', String(v.wpm), '-w', file, '--', said]);
  }
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

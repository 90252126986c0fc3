/**
 * `npm run record:measure -- [dir]`: the figures a review of a rendered explainer asks for, read back
 * from the files with ffprobe and ffmpeg's filters (not from what the recorder meant to write).
 * Prints one table per language found in dir (default: the recorder's output folder).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detect, frameHashes, keyframeTimes, loudness, maxVolume, motionSamples, parseVtt, probe, type Marks } from '../../tools/mediaProbe.ts';
import { MOTION_LEAD_MAX_MS } from '../../src/app/render/schedule.ts';
import { CAPTION_BAND_TOP_PX, SCREEN_HEIGHT_PX } from '../../src/app/picture/captionBand.ts';

/** The chapters on the mechanism (the placeholder, transfer complete, the mixed response): the handoff on the stage. */
const MECHANISM_CHAPTERS = ['placeholder', 'transfer-complete', 'mixed-response'];

const dir = process.argv[2] ?? 'explainer';
const langs = ['en', 'fr'].filter((l) => existsSync(join(dir, `stale-pages.${l}.mp4`)));
if (langs.length === 0) {
  console.error(`record:measure: no stale-pages.<en|fr>.mp4 in ${dir} (render one with npm run record).`);
  process.exit(1);
}

/** How late each moving beat starts after the sentence on screen begins (goal: within the schedule's MOTION_LEAD_MAX_MS). */
function movingBeats(leads: NonNullable<Marks['motionLeads']>): string {
  const limitS = MOTION_LEAD_MAX_MS / 1000;
  const late = leads.filter((m) => m.lead > limitS);
  const latest = leads.reduce((x, m) => Math.max(x, m.lead), 0);
  return `${leads.length}; latest +${latest.toFixed(2)} s; ${late.length} over ${limitS} s (goal 0)${late.length ? ': ' + late.map((m) => `ch ${m.chapter} at ${fmt(m.at)} +${m.lead.toFixed(2)} s`).join(', ') : ''}`;
}

/** The frames whose picture reaches under the caption band (the driver's check of every frame; goal 0), by stretch. */
function underBand(list: NonNullable<Marks['underBand']>): string {
  if (list.length === 0) return '0 frames (goal 0)';
  const stretches: { from: number; to: number; first: string }[] = [];
  for (const u of list) {
    const last = stretches[stretches.length - 1];
    if (last && u.at - last.to < 0.1) last.to = u.at;
    else stretches.push({ from: u.at, to: u.at, first: u.first });
  }
  return `${list.length} frames (goal 0), ${stretches.length} stretches: ${stretches.slice(0, 8).map((x) => `${fmt(x.from)}–${fmt(x.to)} ${x.first}`).join('; ')}${stretches.length > 8 ? '; …' : ''}`;
}

const fmt = (s: number) => `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;

for (const lang of langs) {
  const mp4 = join(dir, `stale-pages.${lang}.mp4`);
  const marks = JSON.parse(readFileSync(join(dir, `chapters.${lang}.json`), 'utf8')) as Marks;
  const v = probe(mp4, '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=codec_name,width,height,r_frame_rate,avg_frame_rate,nb_read_packets').streams[0];
  const duration = Number(probe(mp4, '-show_entries', 'format=duration').format.duration);
  const audio = probe(mp4, '-select_streams', 'a', '-show_entries', 'stream=codec_name').streams.map((s: { codec_name: string }) => s.codec_name);

  const inBeat = ([s, e]: [number, number]) => marks.predictBeats.some((b) => s >= b.start - 0.1 && e <= b.end + 0.1);
  const freezes = detect(mp4, 'freezedetect=n=-60dB:d=2', 'freeze_start', 'freeze_end').map(([s, e]) => [s, Math.min(e, duration)] as [number, number]);
  const frozen = freezes.reduce((t, [s, e]) => t + (e - s), 0);
  const longest = freezes.reduce((m, [s, e]) => Math.max(m, e - s), 0);
  const overFour = freezes.filter(([s, e]) => e - s >= 4);
  const black = detect(mp4, 'blackdetect=d=0.1:pix_th=0.10', 'black_start', 'black_end');

  const keys = keyframeTimes(mp4);
  const keyedChapters = marks.chapters.filter((c) => keys.some((k) => Math.abs(k - c.start) < 0.5 / marks.fps)).length;
  const cuts = marks.chapters.map((c) => c.startFrame).filter((f) => f > 0);
  const hashes = frameHashes(mp4, cuts.flatMap((f) => [f - 1, f]));
  const cutsDiffer = cuts.filter((f) => hashes.get(f) !== hashes.get(f - 1)).length;

  const cues = parseVtt(readFileSync(join(dir, `stale-pages.${lang}.vtt`), 'utf8'));
  const rates = cues.map((c) => c.text.length / (c.end - c.start));
  let atOnce = 0;
  for (const c of cues) atOnce = Math.max(atOnce, cues.filter((d) => d.start < c.end - 1e-3 && d.end > c.start + 1e-3).length);

  // Motion is read above the caption band (the one token the layout draws it by), a few pixels clear of its edge.
  const band = Math.round(((CAPTION_BAND_TOP_PX - 6) * v.height) / SCREEN_HEIGHT_PX);
  const motion = motionSamples(mp4, band);
  const share = (list: { moved: boolean }[]) => (list.length ? (100 * list.filter((m) => m.moved).length) / list.length : 0);
  const mech = marks.chapters.filter((c) => MECHANISM_CHAPTERS.includes(c.id));
  const inMech = motion.filter((m) => mech.some((c) => m.t >= c.start && m.t < c.end));
  const loud = audio.length ? loudness(mp4) : null;
  const rows: [string, string][] = [
    ['length', `${fmt(duration)} (${duration.toFixed(1)} s)`],
    ['video', `${v.codec_name} ${v.width}×${v.height}, r ${v.r_frame_rate}, avg ${v.avg_frame_rate}`],
    ['stored frames', `${v.nb_read_packets} over ${duration.toFixed(1)} s (timeline: ${marks.frames})`],
    ['picture frozen (≥ 2 s)', `${freezes.length} stretches, ${((100 * frozen) / duration).toFixed(1)} % of the runtime; longest ${longest.toFixed(1)} s`],
    ['frozen ≥ 4 s', `${overFour.length} (${overFour.filter(inBeat).length} inside predict beats${overFour.length ? ': ' + overFour.map(([s, e]) => `${s.toFixed(1)}–${e.toFixed(1)}`).join(', ') : ''})`],
    ['black frames', black.length === 0 ? 'none' : black.map(([s, e]) => `${s}–${e}`).join(', ')],
    ['audio', audio.length ? `${audio.join(', ')}, loudest ${maxVolume(mp4).toFixed(1)} dB` : 'none'],
    ['loudness', loud ? `integrated ${loud.integrated.toFixed(1)} LUFS, true peak ${loud.truePeak.toFixed(1)} dBTP (goal −16 ± 1 LUFS, ≤ −1 dBTP)` : 'no audio'],
    ['picture moving above the caption band', `${share(motion).toFixed(0)} % of 0.2 s intervals overall (goal ≥ 40 %); ${share(inMech).toFixed(0)} % in the mechanism chapters ${mech.map((c) => c.n).join(', ') || '(none rendered)'} (goal ≥ 60 %)`],
    ['subtitle streams in the file', String(probe(mp4, '-select_streams', 's', '-show_entries', 'stream=index').streams.length)],
    ['keyframes', `${keys.length}; at ${keyedChapters} of ${marks.chapters.length} chapter starts`],
    ['chapter starts that cut', `${cutsDiffer} of ${cuts.length} (frame before ≠ frame at)`],
    ['caption cues', `${cues.length}; fastest ${Math.max(...rates).toFixed(1)} characters/s; ${rates.filter((r) => r > 17).length} over 17/s`],
    ['cues on screen at once', `at most ${atOnce}`],
    ['predict beats', marks.predictBeats.map((b) => `${(b.end - b.start).toFixed(1)} s`).join(', ') || 'none'],
    ['moving beats after their sentence', marks.motionLeads ? movingBeats(marks.motionLeads) : 'not recorded (an older render)'],
    ['pictures under the caption band', marks.underBand ? underBand(marks.underBand) : 'not recorded (an older render)'],
  ];
  console.log(`\n## ${lang}: ${mp4}\n\n| measured | value |\n|---|---|`);
  for (const [k, val] of rows) console.log(`| ${k} | ${val} |`);
}

export function ffmpegRevision(): string;
export function playwrightFfmpegPath(): string;
export function systemFfmpeg(): string | null;
export function linkFfmpeg(opts?: { quiet?: boolean }): string;

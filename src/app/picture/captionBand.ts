/**
 * The caption band's reserved area at the foot of the screen layout: one token for the layout that
 * draws it (Screen.tsx sets it as `--screen-band-h`, screen.css sizes the band by it), the video's
 * driver that checks each frame's picture against it, and `record:measure` that reads the picture's
 * motion above it. Sizes in CSS px of the 1280×720 layout (1080p renders it at device scale 1.5).
 */
export const SCREEN_HEIGHT_PX = 720;
export const CAPTION_BAND_PX = 104;
/** Where the band begins, from the top of the screen. */
export const CAPTION_BAND_TOP_PX = SCREEN_HEIGHT_PX - CAPTION_BAND_PX;

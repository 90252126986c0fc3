/**
 * The page's one icon set: inline SVG symbols on a 16-unit grid, drawn in the text's colour. An icon
 * is decoration beside a word or an accessible name, never the only label of a control.
 */
const PATHS = {
  play: 'M4 2.5v11l9.5-5.5z',
  pause: 'M4 2.5h3v11H4zM9 2.5h3v11H9z',
  prev: 'M11 2.5v11L2.5 8z',
  next: 'M5 2.5v11L13.5 8z',
  zoomIn: 'M7 2a5 5 0 1 0 2.9 9.1l3.5 3.5 1.2-1.2-3.5-3.5A5 5 0 0 0 7 2zm0 1.6a3.4 3.4 0 1 1 0 6.8 3.4 3.4 0 0 1 0-6.8zM6.2 4.8v1.4H4.8v1.6h1.4v1.4h1.6V7.8h1.4V6.2H7.8V4.8z',
  zoomOut: 'M7 2a5 5 0 1 0 2.9 9.1l3.5 3.5 1.2-1.2-3.5-3.5A5 5 0 0 0 7 2zm0 1.6a3.4 3.4 0 1 1 0 6.8 3.4 3.4 0 0 1 0-6.8zM4.8 6.2v1.6h4.4V6.2z',
  fit: 'M1.5 4V1.5H4V3H3v1zM12 1.5h2.5V4H13V3h-1zM14.5 12v2.5H12V13h1v-1zM4 14.5H1.5V12H3v1h1zM5 7h6v2H5z',
  first: 'M2.5 2.5h2v11h-2zM13.5 2.5v11L5.5 8z',
  leak: 'M8 1.5 14.5 13.5h-13zM7.2 6v4h1.6V6zm0 5v1.6h1.6V11z',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
  return (
    <svg className="icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  );
}

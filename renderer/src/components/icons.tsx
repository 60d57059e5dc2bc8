/** Small inline icons: symbols in fonts are missing on some systems, SVG always draws. */
const paths = {
  play: 'M8 5.5v13a1 1 0 0 0 1.5.86l10.5-6.5a1 1 0 0 0 0-1.72L9.5 4.64A1 1 0 0 0 8 5.5Z',
  pause: 'M7 5h3.5v14H7zM13.5 5H17v14h-3.5z',
  previous: 'M6 5h2.5v14H6zM19 5.8v12.4a.8.8 0 0 1-1.24.67L9.5 13.2a1.4 1.4 0 0 1 0-2.4l8.26-5.67A.8.8 0 0 1 19 5.8Z',
  next: 'M15.5 5H18v14h-2.5zM5 5.8v12.4a.8.8 0 0 0 1.24.67l8.26-5.67a1.4 1.4 0 0 0 0-2.4L6.24 5.13A.8.8 0 0 0 5 5.8Z',
  volume: 'M4 9.5h3.5L12 5.5v13l-4.5-4H4zM15 8.5a5 5 0 0 1 0 7M17.5 6a8.5 8.5 0 0 1 0 12',
  muted: 'M4 9.5h3.5L12 5.5v13l-4.5-4H4zM15.5 9.5l5 5M20.5 9.5l-5 5',
  queue: 'M4 6.5h16M4 12h16M4 17.5h10',
  star: 'm12 3.6 2.6 5.3 5.8.8-4.2 4.1 1 5.8L12 16.9l-5.2 2.7 1-5.8-4.2-4.1 5.8-.8Z',
  sun: 'M12 7.5a4.5 4.5 0 1 0 0 9 4.5 4.5 0 0 0 0-9ZM12 2v2.5M12 19.5V22M2 12h2.5M19.5 12H22M4.9 4.9l1.8 1.8M17.3 17.3l1.8 1.8M4.9 19.1l1.8-1.8M17.3 6.7l1.8-1.8',
  moon: 'M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5Z',
  folder: 'M3 6.5A1.5 1.5 0 0 1 4.5 5h4.4l2 2.2h8.6A1.5 1.5 0 0 1 21 8.7v9.8a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 18.5Z',
  equalizer: 'M5 20V11M10 20V5M15 20v-7M20 20V8',
  plus: 'M12 5v14M5 12h14',
} as const;

const stroked = new Set(['volume', 'muted', 'queue', 'sun', 'equalizer', 'plus']);

export type IconName = keyof typeof paths;

export function Icon({ name, filled = true, size = 20 }: { name: IconName; filled?: boolean; size?: number }) {
  const stroke = stroked.has(name) || !filled;
  return (
    <svg
      class="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      aria-hidden="true"
      focusable="false"
      fill={stroke ? 'none' : 'currentColor'}
      stroke={stroke ? 'currentColor' : 'none'}
      stroke-width={stroke ? 2 : 0}
      stroke-linecap="round"
      stroke-linejoin="round"
    >
      <path d={paths[name]} />
    </svg>
  );
}

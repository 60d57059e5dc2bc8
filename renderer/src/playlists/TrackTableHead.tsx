/** A column of a playlist's track table after Play, # and Title: its class and header text. */
export interface TrackColumn {
  className: string;
  label: string;
  /** The header is for screen readers only (a column of buttons). */
  hidden?: boolean;
}

/**
 * The header row of a playlist's track table (static and shared playlists): Play, #, Title, the
 * playlist's own columns, and an action column (screen-reader label only) when `action` is given.
 */
export function TrackTableHead({ columns, action }: { columns: TrackColumn[]; action?: string }) {
  return (
    <thead>
      <tr>
        <th scope="col" class="col-play">
          <span class="visually-hidden">Play</span>
        </th>
        <th scope="col" class="col-num">
          #
        </th>
        <th scope="col">Title</th>
        {columns.map((c) => (
          <th key={c.className} scope="col" class={c.className}>
            {c.hidden ? <span class="visually-hidden">{c.label}</span> : c.label}
          </th>
        ))}
        {action && (
          <th scope="col" class="col-remove">
            <span class="visually-hidden">{action}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

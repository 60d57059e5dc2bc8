import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorMessage, useAction } from '../components/ui';
import type { InboxPage } from './logic';

type Categories = InboxPage['categories'];

const LABELS: { key: keyof Categories; label: string }[] = [
  { key: 'releases', label: 'New and upcoming releases by library artists' },
  { key: 'shows', label: 'Upcoming shows nearby' },
  { key: 'news', label: 'Artist news digests' },
  { key: 'discoveries', label: 'New discoveries' },
];

/** For administrators: which categories every user's inbox collects, and the inbox itself (settings `inbox.*`). */
export function InboxSettings({ categories, onChanged }: { categories: Categories; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const save = useAction(async (patch: Record<string, unknown>) => {
    await api('/api/settings', { method: 'POST', body: { inbox: patch } });
    onChanged();
  });
  return (
    <details class="inbox-settings" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Inbox categories (for everyone)</summary>
      <fieldset disabled={save.busy}>
        <legend class="visually-hidden">Categories</legend>
        {LABELS.map(({ key, label }) => (
          <label key={key} class="checkbox">
            <input type="checkbox" checked={categories[key]} onChange={(e) => void save.trigger({ categories: { [key]: (e.currentTarget as HTMLInputElement).checked } })} />{' '}
            {label}
          </label>
        ))}
        <button type="button" class="danger" onClick={() => void save.trigger({ enabled: false })}>
          Switch the inbox off
        </button>
      </fieldset>
      <ErrorMessage error={save.error} />
    </details>
  );
}

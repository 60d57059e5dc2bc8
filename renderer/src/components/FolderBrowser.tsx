import { useState } from 'preact/hooks';
import { api } from '../api';
import { Icon } from './icons';
import { ErrorMessage, Loading, useAction, useAsync } from './ui';
import type { Answer } from '../wire.js';

type Listing = Answer<'/api/filesystem/browse'>;

/** Walks the server's folders (not the browser's): the music lives on the server's disks. */
export function FolderBrowser({ onChoose, chooseLabel = 'Add this folder', idPrefix = 'fs' }: { onChoose: (path: string) => void; chooseLabel?: string; idPrefix?: string }) {
  const [path, setPath] = useState<string | undefined>(undefined);
  const [typed, setTyped] = useState('');
  const [newName, setNewName] = useState('');
  const listing = useAsync((signal) => api<Listing>('/api/filesystem/browse', { query: { path }, signal }), [path]);
  const current = listing.data;
  // After a failed Go (a folder that does not exist) the last listing is not the folder shown: nothing
  // can be added or created until a folder that exists is open again (Up, Home and Go still work).
  const failed = listing.error !== null && listing.error !== undefined;
  const shown = failed ? undefined : current;
  const ready = shown !== undefined && !listing.loading;
  const create = useAction(async () => {
    if (!current || listing.error || !newName.trim()) return;
    const sep = current.path.includes('\\') && !current.path.includes('/') ? '\\' : '/';
    const target = current.path.endsWith(sep) ? current.path + newName.trim() : current.path + sep + newName.trim();
    const made = await api<{ path: string }>('/api/filesystem/ensure', { method: 'POST', body: { path: target, create: true } });
    setNewName('');
    setPath(made.path);
  });

  return (
    <div class="folder-browser">
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed.trim()) setPath(typed.trim());
        }}
      >
        <label for={`${idPrefix}-go`} class="visually-hidden">
          Go to a folder path
        </label>
        <input id={`${idPrefix}-go`} placeholder="Type a folder path, e.g. /srv/music" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        <button type="submit">Go</button>
      </form>
      {current && (
        <div class="fs-toolbar">
          <button type="button" disabled={!current.parent} onClick={() => current.parent && setPath(current.parent)} aria-label="Go to the parent folder">
            ↑ Up
          </button>
          <button type="button" onClick={() => setPath(current.home)}>
            Home
          </button>
          {current.roots.length > 1 &&
            current.roots.map((r) => (
              <button type="button" key={r} onClick={() => setPath(r)}>
                {r}
              </button>
            ))}
        </div>
      )}
      {shown && (
        <p class="fs-path">
          <span class="muted">Current folder:</span> <code data-testid="fs-current">{shown.path}</code>
          {!shown.writable && <span class="badge">read-only</span>}
        </p>
      )}
      {failed && current && (
        <p class="fs-path muted" data-testid="fs-none">
          No folder is open: go to one that exists (Up and Home lead back).
        </p>
      )}
      <ErrorMessage error={listing.error} onRetry={listing.reload} />
      {listing.loading && !current && <Loading label="Reading folders…" />}
      {shown && (
        <ul class="fs-list" aria-label="Sub-folders" aria-busy={listing.loading}>
          {shown.directories.length === 0 && <li class="muted fs-none">No sub-folders here.</li>}
          {shown.directories.map((d) => (
            <li key={d.path}>
              <button type="button" class="fs-dir" onClick={() => setPath(d.path)}>
                <Icon name="folder" size={18} /> {d.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {shown && (
        <div class="fs-actions">
          <button type="button" class="primary" disabled={!ready} onClick={() => ready && onChoose(shown.path)}>
            {chooseLabel}
          </button>
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void create.trigger();
            }}
          >
            <label for={`${idPrefix}-new`} class="visually-hidden">
              New folder name
            </label>
            <input id={`${idPrefix}-new`} placeholder="New folder name" value={newName} onInput={(e) => setNewName(e.currentTarget.value)} />
            <button type="submit" disabled={create.busy || !newName.trim()}>
              Create folder
            </button>
          </form>
        </div>
      )}
      <ErrorMessage error={create.error} />
    </div>
  );
}

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage, useAction } from '../components/ui';
import { Artwork } from '../library/Artwork';
import { settingPlace } from '../messages';
import { Link } from '../router';
import { isAdmin, session } from '../session';
import { useStore } from '../store';
import { deleteFeedback, loadFeedback, sendFeedback, type DiscoverEntry, type Feedback, type FeedbackKind } from './api';
import { artistHref, nameKey, sourceLabel } from './logic';

/** The caller's more/less-like-this feedback, by artist name, and the two ways to change it. */
export interface FeedbackState {
  byName: Map<string, Feedback>;
  list: Feedback[];
  /** Records feedback; answers how many artists the server took out of the recommendations. */
  give(artist: { name: string; id: string | null }, kind: FeedbackKind): Promise<number>;
  undo(feedback: Feedback): Promise<void>;
  reload(): void;
}

export function useFeedback(): FeedbackState {
  const [list, setList] = useState<Feedback[]>([]);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    loadFeedback(ctl.signal).then(
      (r) => setList(r.feedback),
      () => undefined, // without the list the buttons simply start unpressed
    );
    return () => ctl.abort();
  }, [tick]);
  const byName = new Map(list.map((f) => [nameKey(f.artistName), f]));
  return {
    list,
    byName,
    async give(artist, kind) {
      const answer = await sendFeedback(artist, kind);
      setList((l) => [answer.feedback, ...l.filter((f) => nameKey(f.artistName) !== nameKey(artist.name))]);
      return answer.removed;
    },
    async undo(feedback) {
      await deleteFeedback(feedback.id);
      setList((l) => l.filter((f) => f.id !== feedback.id));
    },
    reload: () => setTick((t) => t + 1),
  };
}

/** An artist of a discovery section: picture, name, tags, "In your library", feedback and related artists. */
export function ArtistTile({
  entry,
  feedback,
  onLess,
  onRelated,
}: {
  entry: DiscoverEntry;
  feedback?: FeedbackState | undefined;
  /** After "less like this": the server removed the artist (and its closest neighbours). */
  onLess?: ((name: string, removed: number) => void) | undefined;
  onRelated?: ((entry: DiscoverEntry) => void) | undefined;
}) {
  const given = feedback?.byName.get(nameKey(entry.name));
  const action = useAction(async (kind: FeedbackKind) => {
    if (!feedback) return;
    if (given?.kind === kind) return feedback.undo(given);
    const removed = await feedback.give(entry, kind);
    if (kind === 'less') onLess?.(entry.name, removed);
  });
  const sub = entry.basedOn?.length ? `Because you like ${entry.basedOn.slice(0, 2).join(' and ')}` : entry.tags.slice(0, 3).join(', ');
  return (
    <li class="tile discover-tile" data-artist={entry.name}>
      <Link href={artistHref(entry)} class="tile-link">
        <Artwork url={entry.image} size={300} label={entry.name} class="tile-art round" />
        <span class="tile-title">{entry.name}</span>
        <span class="tile-sub muted">{sub}</span>
      </Link>
      <div class="tile-actions">
        {entry.inLibrary && <span class="badge badge-owned">In your library</span>}
        {given && (
          <span class="badge" role="status">
            {given.kind === 'more' ? 'More like this' : 'Less like this'}
          </span>
        )}
      </div>
      {(feedback || onRelated) && (
        <div class="tile-actions discover-feedback">
          {feedback && (
            <>
              <button type="button" class="small-button" aria-pressed={given?.kind === 'more'} disabled={action.busy} aria-label={`More like ${entry.name}`} title="More like this" onClick={() => void action.trigger('more')}>
                More
              </button>
              <button type="button" class="small-button" aria-pressed={given?.kind === 'less'} disabled={action.busy} aria-label={`Less like ${entry.name}`} title="Less like this" onClick={() => void action.trigger('less')}>
                Less
              </button>
            </>
          )}
          {onRelated && (
            <button type="button" class="small-button" aria-label={`Artists like ${entry.name}`} onClick={() => onRelated(entry)}>
              Similar
            </button>
          )}
        </div>
      )}
      {action.error ? <ErrorMessage error={action.error} /> : null}
    </li>
  );
}

export function ArtistGrid({ entries, label, ...rest }: { entries: DiscoverEntry[]; label: string } & Omit<Parameters<typeof ArtistTile>[0], 'entry'>) {
  return (
    <ul class="grid" aria-label={label}>
      {entries.map((e, i) => (
        <ArtistTile key={`${nameKey(e.name)}-${i}`} entry={e} {...rest} />
      ))}
    </ul>
  );
}

export function DiscoverSection({ id, title, children, actions }: { id: string; title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="meta-section discover-section" aria-labelledby={`${id}-title`}>
      <header class="discover-section-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** Tag chips that open the tag's artists on the Discover screen. */
export function DiscoverTags({ tags, label }: { tags: string[]; label: string }) {
  if (tags.length === 0) return null;
  return (
    <ul class="tag-list" aria-label={label}>
      {tags.map((t) => (
        <li key={t}>
          <Link href={`/discover/tags?tag=${encodeURIComponent(t)}`} class="tag-chip">
            {t}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Where the missing piece is set up: a link that opens its card for an administrator, else who to ask. */
export function SettingsPointer({ setting, what }: { setting: string; what: string }) {
  const admin = isAdmin(useStore(session).user);
  const place = settingPlace(setting);
  return admin ? (
    <span>
      Add {what} in <Link href={place?.href ?? '/settings'}>{place?.place ?? 'Settings'}</Link>.
    </span>
  ) : (
    <span>Ask an administrator to add {what}.</span>
  );
}

export function sourceWords(source: string | undefined): string {
  const s = sourceLabel(source);
  return s ? `from ${s}` : '';
}

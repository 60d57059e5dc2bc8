import { actionsFor, dateText, isInternal, KIND_LABELS, type InboxActionName, type InboxItem } from './logic';
import { withBase } from '../base';

export interface InboxItemViewProps {
  item: InboxItem;
  /** The action running on this item, if any (its buttons wait). */
  busy: InboxActionName | null;
  onAction: (item: InboxItem, action: InboxActionName) => void;
  /** Opens a web UI path without reloading (the router's navigate). */
  onNavigate: (href: string) => void;
  now?: number;
}

/** One inbox item: kind, title (a link where it leads somewhere), what it is, and its actions. */
export function InboxItemView({ item, busy, onAction, onNavigate, now }: InboxItemViewProps) {
  const when = dateText(item, now);
  const articles = item.kind === 'news' && Array.isArray(item.metadata.articles) ? (item.metadata.articles as { id: number; title: string; url: string | null; source: string }[]) : [];
  const title = item.href ? (
    isInternal(item.href) ? (
      <a
        href={item.href}
        onClick={(e) => {
          if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          if (!item.isRead) onAction(item, 'read');
          onNavigate(item.href!);
        }}
      >
        {item.title}
      </a>
    ) : (
      <a href={withBase(item.href)} target="_blank" rel="noopener noreferrer" onClick={() => !item.isRead && onAction(item, 'read')}>
        {item.title}
      </a>
    )
  ) : (
    item.title
  );
  return (
    <article class={`inbox-item inbox-${item.kind}${item.isRead ? ' is-read' : ' is-unread'}`} aria-label={`${KIND_LABELS[item.kind]}: ${item.title}`}>
      {item.imageUrl ? <img class="inbox-image" src={withBase(item.imageUrl)} alt="" loading="lazy" width={56} height={56} /> : <span class="inbox-image placeholder" aria-hidden="true" />}
      <div class="inbox-body">
        <p class="inbox-meta small">
          <span class={`inbox-kind kind-${item.kind}`}>{KIND_LABELS[item.kind]}</span>
          {!item.isRead && <span class="inbox-new">New</span>}
          {item.isSaved && <span class="inbox-saved">Saved</span>}
          {item.isAdded && <span class="inbox-added">{item.addable === 'artist' ? 'Added' : 'Requested'}</span>}
          {when && <span class="muted">{when}</span>}
        </p>
        <h3 class="inbox-title">{title}</h3>
        {item.subtitle && <p class="inbox-subtitle muted">{item.subtitle}</p>}
        {articles.length > 1 && (
          <ul class="inbox-articles small">
            {articles.map((a) => (
              <li key={a.id}>
                {a.url ? (
                  <a href={a.url} target="_blank" rel="noopener noreferrer">
                    {a.title}
                  </a>
                ) : (
                  a.title
                )}{' '}
                <span class="muted">({a.source})</span>
              </li>
            ))}
          </ul>
        )}
        <div class="inbox-actions">
          {actionsFor(item).map(({ action, label }) => (
            <button
              type="button"
              key={action}
              class={action === 'add' ? 'primary' : undefined}
              disabled={busy !== null}
              aria-busy={busy === action ? 'true' : undefined}
              onClick={() => onAction(item, action)}
            >
              {busy === action ? `${label}…` : label}
            </button>
          ))}
        </div>
      </div>
    </article>
  );
}

import { useState } from 'preact/hooks';
import { artworkUrl } from './model';
import { withBase } from '../base';

/** Cover art from the image proxy, or a lettered tile when there is none. */
export function Artwork({ url, size, label, class: cls = '' }: { url: string | null | undefined; size: number; label: string; class?: string }) {
  const [failed, setFailed] = useState(false);
  const src = failed ? null : artworkUrl(url, size);
  if (!src) {
    const hue = [...label].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
    return (
      <div class={`art art-placeholder ${cls}`} style={{ '--hue': String(hue) }} aria-hidden="true">
        {label.trim().charAt(0).toUpperCase() || '♪'}
      </div>
    );
  }
  return <img class={`art ${cls}`} src={withBase(src)} alt="" loading="lazy" decoding="async" onError={() => setFailed(true)} />;
}

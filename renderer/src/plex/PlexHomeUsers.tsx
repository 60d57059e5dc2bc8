import { useState } from 'preact/hooks';
import { ErrorMessage, Loading, useAction, useAsync } from '../components/ui';
import { plexHomeApi, type PlexHomeUser } from './api';

/** Plex Home: link each Home user (managed users have no password of their own) to a Tonearm user. */
export function PlexHomeUsers() {
  const home = useAsync((signal) => plexHomeApi.list(signal), []);
  const users = useAsync((signal) => plexHomeApi.users(signal), []);
  return (
    <div class="plex-home">
      <h3>Plex Home users</h3>
      <p class="muted">Link a Plex Home user to a Tonearm user, so that user's playlists go to their own Plex profile.</p>
      {(home.loading || users.loading) && !(home.data && users.data) && <Loading />}
      <ErrorMessage error={home.error ?? users.error} onRetry={home.error ? home.reload : users.reload} />
      {home.data && users.data && home.data.users.length === 0 && <p class="muted">This Plex account has no Home users.</p>}
      {home.data && users.data && home.data.users.length > 0 && (
        <ul class="service-list">
          {home.data.users.map((u) => (
            <li key={u.id}>
              <HomeUserRow homeUser={u} users={users.data!} onChanged={home.reload} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function HomeUserRow({ homeUser, users, onChanged }: { homeUser: PlexHomeUser; users: { id: number; username: string }[]; onChanged: () => void }) {
  const [userId, setUserId] = useState('');
  const [pin, setPin] = useState('');
  const name = homeUser.title ?? homeUser.username ?? `Home user ${homeUser.id}`;
  const linkedTo = users.find((u) => u.id === homeUser.linkedUserId);
  const link = useAction(async () => {
    await plexHomeApi.link(Number(userId), homeUser.id, pin.trim());
    setPin('');
    onChanged();
  });
  const unlink = useAction(async () => {
    await plexHomeApi.unlink(homeUser.linkedUserId!);
    onChanged();
  });
  if (homeUser.linkedUserId !== null)
    return (
      <div>
        <strong>{name}</strong>: linked to <strong>{linkedTo?.username ?? `user ${homeUser.linkedUserId}`}</strong>{' '}
        <button type="button" disabled={unlink.busy} onClick={() => void unlink.trigger()}>
          Unlink
        </button>
        <ErrorMessage error={unlink.error} />
      </div>
    );
  return (
    <form
      class="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        void link.trigger();
      }}
    >
      <strong>{name}</strong>
      {homeUser.restricted && <span class="badge">managed</span>}
      <select aria-label={`Tonearm user for ${name}`} value={userId} onChange={(e) => setUserId(e.currentTarget.value)} required>
        <option value="">Tonearm user…</option>
        {users.map((u) => (
          <option key={u.id} value={String(u.id)}>
            {u.username}
          </option>
        ))}
      </select>
      {homeUser.protected && (
        <input aria-label={`Plex PIN of ${name}`} inputMode="numeric" pattern="\d{4}" maxLength={4} placeholder="PIN" value={pin} onInput={(e) => setPin(e.currentTarget.value)} required />
      )}
      <button type="submit" disabled={link.busy || !userId}>
        {link.busy ? 'Linking…' : 'Link'}
      </button>
      <ErrorMessage error={link.error} />
    </form>
  );
}

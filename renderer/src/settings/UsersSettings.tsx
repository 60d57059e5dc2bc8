import { useState } from 'preact/hooks';
import { api } from '../api';
import { permissionLabels } from '../components/Rights';
import { Card, ErrorMessage, Field, Loading, useAction, useAsync } from '../components/ui';
import { permissionNames, session, type PermissionName } from '../session';
import { useStore } from '../store';
import { UserIdentities } from './OidcIdentityCard';
import type { Answer } from '../wire.js';

type UserRow = Answer<'/api/users'>[number];


export function UsersSettings() {
  const users = useAsync((signal) => api<UserRow[]>('/api/users', { signal }), []);
  const [editing, setEditing] = useState<number | null>(null);
  return (
    <>
      <Card title="Users" id="users">
        {users.loading && !users.data && <Loading label="Loading users…" />}
        <ErrorMessage error={users.error} onRetry={users.reload} />
        {users.data && (
          <ul class="user-list">
            {users.data.map((u) => (
              <li key={u.id}>
                <div class="user-row">
                  <span>
                    <strong>{u.username}</strong> <span class="badge">{u.role === 'admin' ? 'Administrator' : 'User'}</span>
                    {u.status === 'disabled' && <span class="badge badge-warn">Disabled</span>}
                  </span>
                  <button type="button" aria-expanded={editing === u.id} onClick={() => setEditing(editing === u.id ? null : u.id)} aria-label={`Edit ${u.username}`}>
                    {editing === u.id ? 'Close' : 'Edit'}
                  </button>
                </div>
                {editing === u.id && (
                  <EditUser
                    user={u}
                    onSaved={(next) => users.setData(users.data!.map((x) => (x.id === next.id ? next : x)))}
                    onDeleted={() => {
                      users.setData(users.data!.filter((x) => x.id !== u.id));
                      setEditing(null);
                    }}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <NewUser onCreated={(u) => users.setData([...(users.data ?? []), u])} />
    </>
  );
}

function EditUser({ user, onSaved, onDeleted }: { user: UserRow; onSaved: (u: UserRow) => void; onDeleted: () => void }) {
  const me = useStore(session).user;
  const [role, setRole] = useState(user.role);
  const [permissions, setPermissions] = useState(user.permissions);
  const [status, setStatus] = useState(user.status);
  const [password, setPassword] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    const body: Record<string, unknown> = { role, status, permissions };
    if (password) body.password = password;
    const next = await api<UserRow>(`/api/users/${user.id}`, { method: 'PATCH', body });
    setPassword('');
    setSaved(true);
    onSaved(next);
  });
  const remove = useAction(async () => {
    await api(`/api/users/${user.id}`, { method: 'DELETE' });
    onDeleted();
  });
  const id = `user-${user.id}`;
  return (
    <>
      <form
        class="user-edit"
        onSubmit={(e) => {
          e.preventDefault();
          void save.trigger();
        }}
      >
        <div class="field">
          <label for={`${id}-role`}>Role</label>
          <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.currentTarget.value as UserRow['role'])}>
            <option value="user">User</option>
            <option value="admin">Administrator</option>
          </select>
        </div>
        <fieldset class="permissions" disabled={role === 'admin'}>
          <legend>Permissions {role === 'admin' && <span class="muted">(administrators have all)</span>}</legend>
          {permissionNames.map((p) => (
            <label key={p} class="check">
              <input
                type="checkbox"
                checked={role === 'admin' || permissions[p]}
                disabled={p === 'accessSettings'}
                onChange={(e) => setPermissions({ ...permissions, [p]: e.currentTarget.checked })}
              />
              {permissionLabels[p]}
            </label>
          ))}
        </fieldset>
        <label class="check">
          <input type="checkbox" checked={status === 'disabled'} disabled={me?.id === user.id} onChange={(e) => setStatus(e.currentTarget.checked ? 'disabled' : 'active')} />
          Account disabled
        </label>
        <Field id={`${id}-password`} label="New password (optional)" type="password" autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save'}
          </button>
          {me?.id !== user.id &&
            (confirmDelete ? (
              <>
                <button type="button" class="danger" onClick={() => void remove.trigger()} disabled={remove.busy}>
                  Delete {user.username} now
                </button>
                <button type="button" onClick={() => setConfirmDelete(false)}>
                  Cancel
                </button>
              </>
            ) : (
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                Delete…
              </button>
            ))}
        </div>
        {saved && !save.error && (
          <p class="muted" role="status">
            Saved.
          </p>
        )}
        <ErrorMessage error={save.error ?? remove.error} />
      </form>
      <UserIdentities userId={user.id} username={user.username} />
    </>
  );
}

function NewUser({ onCreated }: { onCreated: (u: UserRow) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<UserRow['role']>('user');
  const create = useAction(async () => {
    const user = await api<UserRow>('/api/users', { method: 'POST', body: { username: username.trim(), password, role } });
    setUsername('');
    setPassword('');
    onCreated(user);
  });
  return (
    <Card title="Add a user" id="new-user">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.trigger();
        }}
      >
        <div class="field-row">
          <Field id="new-user-name" label="User name" autoComplete="off" value={username} onInput={(e) => setUsername(e.currentTarget.value)} required />
          <Field id="new-user-pass" label="Password" type="password" autoComplete="new-password" hint="At least 8 characters." value={password} onInput={(e) => setPassword(e.currentTarget.value)} required />
          <div class="field">
            <label for="new-user-role">Role</label>
            <select id="new-user-role" value={role} onChange={(e) => setRole(e.currentTarget.value as UserRow['role'])}>
              <option value="user">User</option>
              <option value="admin">Administrator</option>
            </select>
          </div>
        </div>
        <button type="submit" class="primary" disabled={create.busy}>
          {create.busy ? 'Adding…' : 'Add user'}
        </button>
        <ErrorMessage error={create.error} />
      </form>
    </Card>
  );
}

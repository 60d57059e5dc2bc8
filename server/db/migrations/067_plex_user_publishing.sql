-- Publishing to Plex under each user's own Plex identity (issue 15): a user with a Plex link gets
-- their playlists as their own Plex playlists, made with that user's access token for the chosen
-- server (plex.tv's resources list hands every user, home and managed users included, a token of
-- their own for each server they may use). One row per identity playlists are published under:
-- the publication account (server, library and Plex user), the server token plex.tv gave that
-- user (encrypted) and the addresses it listed for the server (the only ones the token goes to).
-- A row whose link is gone is kept only until what was published under it has been deleted there.
CREATE TABLE plex_publish_identities (
  account TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL,
  -- linked_at of the plex_links row the token was resolved from: a new link resolves again
  link_at INTEGER NOT NULL,
  token_enc TEXT NOT NULL,
  origins TEXT NOT NULL DEFAULT '[]',
  updated_at INTEGER NOT NULL
);

-- A publication moving to another identity on the same destination (a user linked or unlinked
-- Plex): the remote playlist still to delete under the old one. Set in the same transaction that
-- points the row at the new identity, cleared once the old playlist is gone there.
ALTER TABLE playback_publications ADD COLUMN previous_account TEXT;
ALTER TABLE playback_publications ADD COLUMN previous_remote_id TEXT;

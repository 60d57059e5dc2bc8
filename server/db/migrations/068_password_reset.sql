-- A one-time password set by `npm run reset-password`: 0 none, 1 set and not used yet, 2 used for
-- one sign-in (that session may only choose a new password; the one-time password signs in no more).
ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0;

-- Accounts signed in through an OpenID provider: the provider's subject is bound to one user, so a
-- later sign-in with the same user name but another subject cannot take the account over.
CREATE TABLE user_identities (
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- 1 when the sign-in created the account (its role follows the provider's groups at each sign-in)
  created_user INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  last_login_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX user_identities_user ON user_identities (user_id);

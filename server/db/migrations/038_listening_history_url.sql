-- Koito is self-hosted: its base URL belongs to the user's listening-history choice (decisions §7).
ALTER TABLE users ADD COLUMN listening_history_url TEXT;

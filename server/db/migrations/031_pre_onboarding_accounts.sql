-- Earlier versions let anyone act as administrator before onboarding, so accounts and the instance
-- API key could be planted then and outlive it. On an installation that never completed onboarding
-- they are removed (user-owned rows follow through ON DELETE CASCADE / SET NULL); onboarding creates
-- the first administrator and a new key. Installations that completed onboarding are not touched.
DELETE FROM sessions
WHERE NOT EXISTS (SELECT 1 FROM settings WHERE key = 'onboarding.complete' AND value = 'true');
DELETE FROM users
WHERE NOT EXISTS (SELECT 1 FROM settings WHERE key = 'onboarding.complete' AND value = 'true');
DELETE FROM settings
WHERE key = 'instance.apiKey'
  AND NOT EXISTS (SELECT 1 FROM settings WHERE key = 'onboarding.complete' AND value = 'true');

import { describe, expect, it } from 'vitest';
import { settingLabel } from './labels.js';

describe('setting labels', () => {
  it('names settings in words instead of paths', () => {
    expect(settingLabel(['security', 'corsOrigins', 0])).toBe('Allowed origins (CORS), entry 1');
    expect(settingLabel(['library', 'watchDebounceMs'])).toBe('Wait after a file change');
    expect(settingLabel(['integrations', 'lidarr', 'url'])).toBe('Lidarr address');
    expect(settingLabel(['integrations', 'lidarr', 'pathMappings', 1, 'from'])).toBe('Lidarr path mappings from, entry 2');
    expect(settingLabel(['integrations', 'koito'])).toBe('koito settings');
    expect(settingLabel(['someSection', 'newField'])).toBe('Some section new field');
    expect(settingLabel([])).toBe('Settings');
  });

  it('names the Usenet settings', () => {
    expect(settingLabel(['integrations', 'sabnzbd', 'completedPath'])).toBe('SABnzbd completed folder on this computer');
    expect(settingLabel(['integrations', 'nzbget', 'password'])).toBe('NZBGet password');
    expect(settingLabel(['integrations', 'prowlarr', 'apiKey'])).toBe('Prowlarr API key');
  });

  it('names the notification settings', () => {
    expect(settingLabel(['notifications', 'webhooks', 1, 'url'])).toBe('Webhooks, entry 2 (url)');
    expect(settingLabel(['notifications', 'gotify', 'events', 0])).toBe('Gotify notification events, entry 1');
    expect(settingLabel(['notifications', 'publicUrl'])).toBe('Address for links in notifications');
    expect(settingLabel(['notifications', 'ntfy', 'tags', 'job_done', 0])).toBe('ntfy tags, entry 1 (job_done)');
    expect(settingLabel(['integrations', 'ntfy', 'topic'])).toBe('ntfy topic');
    expect(settingLabel(['integrations', 'discord', 'webhookUrl'])).toBe('Discord webhook address');
  });
});

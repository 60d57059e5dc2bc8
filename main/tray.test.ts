import { describe, expect, it } from 'vitest';
import { trayMenu, trayTooltip, type TrayState } from './tray.js';

const running: TrayState = {
  server: 'running',
  bindAddress: '0.0.0.0',
  lanUrl: 'http://192.168.1.20:3001',
  downloads: 'running',
  startAtLogin: false,
};

describe('trayMenu', () => {
  it('offers open, copy LAN address, pause downloads, start at login, logs and quit while running', () => {
    expect(trayMenu(running)).toEqual([
      { type: 'normal', label: 'Server running', enabled: false },
      { type: 'normal', label: 'Open Tonearm', enabled: true, action: 'open' },
      { type: 'normal', label: 'Copy LAN address (http://192.168.1.20:3001)', enabled: true, action: 'copy-lan-address' },
      { type: 'separator' },
      { type: 'normal', label: 'Pause downloads', enabled: true, action: 'pause-downloads' },
      { type: 'checkbox', label: 'Start at login', enabled: true, checked: false, action: 'toggle-start-at-login' },
      { type: 'normal', label: 'Open logs folder', enabled: true, action: 'open-logs' },
      { type: 'normal', label: 'Reset administrator password…', enabled: true, action: 'reset-admin-password' },
      { type: 'separator' },
      { type: 'normal', label: 'Quit Tonearm', enabled: true, action: 'quit' },
    ]);
  });

  it('offers resume when downloads are paused, and checks start at login when it is on', () => {
    const menu = trayMenu({ ...running, downloads: 'paused', startAtLogin: true });
    expect(menu[4]).toEqual({ type: 'normal', label: 'Resume downloads', enabled: true, action: 'resume-downloads' });
    expect(menu[5]).toEqual({ type: 'checkbox', label: 'Start at login', enabled: true, checked: true, action: 'toggle-start-at-login' });
  });

  it('disables pausing until the desktop user has signed in', () => {
    expect(trayMenu({ ...running, downloads: 'unknown' })[4]).toEqual({
      type: 'normal',
      label: 'Pause downloads (sign in first)',
      enabled: false,
      action: 'pause-downloads',
    });
  });

  it('shows a disabled LAN line when there is no LAN address or the server is local only', () => {
    expect(trayMenu({ ...running, lanUrl: null })[2]).toEqual({ type: 'normal', label: 'No LAN address found', enabled: false });
    expect(trayMenu({ ...running, bindAddress: '127.0.0.1', lanUrl: null })[2]).toEqual({
      type: 'normal',
      label: 'LAN access off (this computer only)',
      enabled: false,
    });
  });

  it('shows pause downloads as unavailable when the server build has no download worker', () => {
    expect(trayMenu({ ...running, downloads: 'unavailable' })[4]).toEqual({
      type: 'normal',
      label: 'Pause downloads (not in this version)',
      enabled: false,
      action: 'pause-downloads',
    });
  });

  it('disables open, copy and downloads while the server is not running, but keeps logs, the password reset and quit', () => {
    const menu = trayMenu({ ...running, server: 'failed' });
    expect(menu.map((item) => (item.type === 'separator' ? '---' : `${item.label}: ${item.enabled}`))).toEqual([
      'Server failed — see the logs: false',
      'Open Tonearm: false',
      'Copy LAN address (http://192.168.1.20:3001): false',
      '---',
      'Pause downloads: false',
      'Start at login: true',
      'Open logs folder: true',
      'Reset administrator password…: true',
      '---',
      'Quit Tonearm: true',
    ]);
  });
});

describe('trayTooltip', () => {
  it('shows the LAN address while running, and the state otherwise', () => {
    expect(trayTooltip(running)).toBe('Tonearm — http://192.168.1.20:3001');
    expect(trayTooltip({ ...running, lanUrl: null })).toBe('Tonearm');
    expect(trayTooltip({ ...running, server: 'restarting' })).toBe('Tonearm — server restarting…');
  });
});

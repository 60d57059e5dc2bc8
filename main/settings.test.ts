import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  defaultShellSettings,
  InvalidSettingsError,
  needsServerRestart,
  readShellSettings,
  serverLaunchConfig,
  updateShellSettings,
  type ShellSettings,
  type ShellSettingsStore,
} from './settings.js';

function memoryStore(initial: Record<string, unknown> = {}): ShellSettingsStore & { data: Map<string, unknown> } {
  const data = new Map(Object.entries(initial));
  return { data, get: (key) => data.get(key), set: (key, value) => void data.set(key, value) };
}

function rejection(change: unknown): InvalidSettingsError {
  try {
    updateShellSettings(memoryStore(), change);
  } catch (error) {
    if (error instanceof InvalidSettingsError) return error;
    throw error;
  }
  throw new Error('expected the change to be rejected');
}

const dataDir = path.resolve('/srv/tonearm');

describe('shell settings', () => {
  it('defaults to port 3001 on all interfaces, not starting at login, shown, data under userData', () => {
    expect(readShellSettings(memoryStore())).toEqual({
      port: 3001,
      bindAddress: '0.0.0.0',
      startAtLogin: false,
      startHidden: false,
      dataDir: null,
      musicDirs: [],
    });
  });

  it('stores a valid change and returns the whole settings', () => {
    const store = memoryStore();
    const settings = updateShellSettings(store, { port: 0, bindAddress: '127.0.0.1', startAtLogin: true, dataDir });

    expect(settings).toEqual({ ...defaultShellSettings, port: 0, bindAddress: '127.0.0.1', startAtLogin: true, dataDir });
    expect(Object.fromEntries(store.data)).toEqual({ port: 0, bindAddress: '127.0.0.1', startAtLogin: true, dataDir });
  });

  it('rejects ports outside 1–65535 (other than 0) with a clear message', () => {
    for (const port of [-1, 65536, 80.5, '8080', null]) {
      const error = rejection({ port });
      expect(error.problems).toEqual([
        { setting: 'port', message: 'Port must be a whole number from 1 to 65535, or 0 to pick any free port.' },
      ]);
    }
  });

  it('rejects a bind address other than 0.0.0.0 or 127.0.0.1 with a clear message', () => {
    const error = rejection({ bindAddress: '192.168.1.5' });
    expect(error.message).toBe(
      'Bind address must be 0.0.0.0 (all interfaces, reachable from the LAN) or 127.0.0.1 (this computer only).',
    );
    expect(error.problems[0]?.setting).toBe('bindAddress');
  });

  it('rejects a relative data folder, unknown settings, and stores nothing of a rejected change', () => {
    const store = memoryStore();
    expect(() => updateShellSettings(store, { port: 4000, dataDir: 'relative/dir' })).toThrow(
      'Data folder must be an absolute path.',
    );
    expect(rejection({ theme: 'dark' }).message).toBe('Unknown settings: theme.');
    expect(store.data.size).toBe(0);
  });

  it('falls back to the default for a stored value that no longer validates', () => {
    const store = memoryStore({ port: 'eighty', bindAddress: '127.0.0.1', startHidden: 'yes' });
    expect(readShellSettings(store)).toEqual({ ...defaultShellSettings, bindAddress: '127.0.0.1' });
  });

  it('builds the server launch configuration, with the data folder under userData by default', () => {
    const userData = path.resolve('/home/me/.config/Tonearm');
    expect(serverLaunchConfig(defaultShellSettings, userData)).toEqual({
      port: 3001,
      host: '0.0.0.0',
      dataDir: path.join(userData, 'server'),
      musicDirs: [],
    });
    expect(serverLaunchConfig({ ...defaultShellSettings, dataDir }, userData).dataDir).toBe(dataDir);
  });
});

describe('needsServerRestart', () => {
  const before: ShellSettings = defaultShellSettings;

  it('is true when the port, bind address, data folder or music folders change', () => {
    expect(needsServerRestart(before, { ...before, port: 4000 })).toBe(true);
    expect(needsServerRestart(before, { ...before, bindAddress: '127.0.0.1' })).toBe(true);
    expect(needsServerRestart(before, { ...before, dataDir })).toBe(true);
    expect(needsServerRestart(before, { ...before, musicDirs: [path.resolve('/music')] })).toBe(true);
  });

  it('is false for start at login, start hidden, or an unchanged copy', () => {
    expect(needsServerRestart(before, { ...before, startAtLogin: true, startHidden: true })).toBe(false);
    expect(needsServerRestart(before, { ...before, musicDirs: [...before.musicDirs] })).toBe(false);
  });
});

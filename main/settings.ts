import path from 'node:path';
import { z } from 'zod';
import type { ServerLaunchConfig } from './supervisor.js';

const PORT_MESSAGE = 'Port must be a whole number from 1 to 65535, or 0 to pick any free port.';
const BIND_MESSAGE =
  'Bind address must be 0.0.0.0 (all interfaces, reachable from the LAN) or 127.0.0.1 (this computer only).';

export const BIND_ADDRESSES = ['0.0.0.0', '127.0.0.1'] as const;

const absolutePath = (what: string) =>
  z
    .string({ error: `${what} must be an absolute path.` })
    .refine((value) => path.isAbsolute(value), { error: `${what} must be an absolute path.` });

export const shellSettingsSchema = z.object({
  port: z
    .number({ error: PORT_MESSAGE })
    .int({ error: PORT_MESSAGE })
    .min(0, { error: PORT_MESSAGE })
    .max(65535, { error: PORT_MESSAGE }),
  bindAddress: z.enum(BIND_ADDRESSES, { error: BIND_MESSAGE }),
  startAtLogin: z.boolean({ error: 'Start at login must be true or false.' }),
  startHidden: z.boolean({ error: 'Start hidden must be true or false.' }),
  /** null keeps the data under the app's own folder. */
  dataDir: absolutePath('Data folder').nullable(),
  musicDirs: z.array(absolutePath('Each music folder')),
});

export type ShellSettings = z.infer<typeof shellSettingsSchema>;
export type BindAddress = ShellSettings['bindAddress'];

export const defaultShellSettings: ShellSettings = {
  port: 3001,
  bindAddress: '0.0.0.0',
  startAtLogin: false,
  startHidden: false,
  dataDir: null,
  musicDirs: [],
};

const SETTING_KEYS = Object.keys(defaultShellSettings) as (keyof ShellSettings)[];

/** The slice of electron-store used here; tests pass an in-memory map. */
export interface ShellSettingsStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export class InvalidSettingsError extends Error {
  constructor(readonly problems: { setting: string; message: string }[]) {
    super(problems.map((problem) => problem.message).join(' '));
    this.name = 'InvalidSettingsError';
  }
}

/** Stored values that no longer validate (a hand-edited file, an older version) fall back to defaults. */
export function readShellSettings(store: ShellSettingsStore): ShellSettings {
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const parsed = shellSettingsSchema.shape[key].safeParse(store.get(key));
    settings[key] = parsed.success ? parsed.data : defaultShellSettings[key];
  }
  return settings as ShellSettings;
}

/** Validates a change from the settings screen, stores it, and returns the whole new settings. */
export function updateShellSettings(store: ShellSettingsStore, change: unknown): ShellSettings {
  const parsed = shellSettingsSchema.partial().strict().safeParse(change);
  if (!parsed.success) {
    throw new InvalidSettingsError(
      parsed.error.issues.map((issue) => ({
        setting: issue.path.join('.'),
        message: issue.code === 'unrecognized_keys' ? `Unknown settings: ${issue.keys.join(', ')}.` : issue.message,
      })),
    );
  }
  for (const [key, value] of Object.entries(parsed.data)) if (value !== undefined) store.set(key, value);
  return readShellSettings(store);
}

/** Port, address and folders are read by the server only when it starts. */
export function needsServerRestart(before: ShellSettings, after: ShellSettings): boolean {
  return (
    before.port !== after.port ||
    before.bindAddress !== after.bindAddress ||
    before.dataDir !== after.dataDir ||
    before.musicDirs.join('\n') !== after.musicDirs.join('\n')
  );
}

/** The server's data folder: the chosen one, or `server` under the app's userData folder. */
export function serverDataDir(settings: ShellSettings, userDataDir: string): string {
  return settings.dataDir ?? path.join(userDataDir, 'server');
}

export function serverLaunchConfig(settings: ShellSettings, userDataDir: string): ServerLaunchConfig {
  return {
    port: settings.port,
    host: settings.bindAddress,
    dataDir: serverDataDir(settings, userDataDir),
    musicDirs: settings.musicDirs,
  };
}

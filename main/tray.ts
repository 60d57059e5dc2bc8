/** What the tray can ask the shell to do; `index.ts` maps each to Electron calls. */
export type TrayAction =
  | 'open'
  | 'copy-lan-address'
  | 'pause-downloads'
  | 'resume-downloads'
  | 'toggle-start-at-login'
  | 'open-logs'
  | 'reset-admin-password'
  | 'quit';

export type TrayMenuItem =
  | { type: 'normal'; label: string; enabled: boolean; action?: TrayAction }
  | { type: 'checkbox'; label: string; enabled: boolean; checked: boolean; action: TrayAction }
  | { type: 'separator' };

export interface TrayState {
  server: 'starting' | 'running' | 'restarting' | 'stopped' | 'failed';
  bindAddress: string;
  /** The first LAN URL, or null when there is none. */
  lanUrl: string | null;
  /** 'unknown' until the desktop user has signed in and the shell can call the API. */
  downloads: 'running' | 'paused' | 'unknown' | 'unavailable';
  startAtLogin: boolean;
}

const SERVER_STATUS: Record<TrayState['server'], string> = {
  starting: 'Server starting…',
  running: 'Server running',
  restarting: 'Server restarting…',
  stopped: 'Server stopped',
  failed: 'Server failed — see the logs',
};

/** The tray menu as plain data, so its labels and states are tested without Electron. */
export function trayMenu(state: TrayState): TrayMenuItem[] {
  const running = state.server === 'running';
  return [
    { type: 'normal', label: SERVER_STATUS[state.server], enabled: false },
    { type: 'normal', label: 'Open Tonearm', enabled: running, action: 'open' },
    lanItem(state),
    { type: 'separator' },
    downloadsItem(state, running),
    { type: 'checkbox', label: 'Start at login', enabled: true, checked: state.startAtLogin, action: 'toggle-start-at-login' },
    { type: 'normal', label: 'Open logs folder', enabled: true, action: 'open-logs' },
    // Works with the server stopped too: the script writes to the data folder directly.
    { type: 'normal', label: 'Reset administrator password…', enabled: true, action: 'reset-admin-password' },
    { type: 'separator' },
    { type: 'normal', label: 'Quit Tonearm', enabled: true, action: 'quit' },
  ];
}

export function trayTooltip(state: TrayState): string {
  if (state.server !== 'running') return `Tonearm — ${SERVER_STATUS[state.server].toLowerCase()}`;
  return state.lanUrl ? `Tonearm — ${state.lanUrl}` : 'Tonearm';
}

function lanItem(state: TrayState): TrayMenuItem {
  if (state.bindAddress === '127.0.0.1') {
    return { type: 'normal', label: 'LAN access off (this computer only)', enabled: false };
  }
  if (!state.lanUrl) return { type: 'normal', label: 'No LAN address found', enabled: false };
  return {
    type: 'normal',
    label: `Copy LAN address (${state.lanUrl})`,
    enabled: state.server === 'running',
    action: 'copy-lan-address',
  };
}

function downloadsItem(state: TrayState, running: boolean): TrayMenuItem {
  if (state.downloads === 'paused') {
    return { type: 'normal', label: 'Resume downloads', enabled: running, action: 'resume-downloads' };
  }
  if (state.downloads === 'running') {
    return { type: 'normal', label: 'Pause downloads', enabled: running, action: 'pause-downloads' };
  }
  if (state.downloads === 'unavailable') {
    return { type: 'normal', label: 'Pause downloads (not in this version)', enabled: false, action: 'pause-downloads' };
  }
  return { type: 'normal', label: 'Pause downloads (sign in first)', enabled: false, action: 'pause-downloads' };
}

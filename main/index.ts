import path from 'node:path';
import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  shell,
  Tray,
  utilityProcess,
  type MenuItemConstructorOptions,
} from 'electron';
import Store from 'electron-store';
import { downloadWorkerAvailable, setDownloadsPaused } from './downloadWorker.js';
import { lanAddresses, lanQrCodeSvg, lanServerUrls } from './lan.js';
import { BlockedJobNotifier } from './notifications.js';
import { RotatingLogFile } from './serverLog.js';
import { utilityProcessLauncher } from './serverProcess.js';
import {
  needsServerRestart,
  readShellSettings,
  serverLaunchConfig,
  updateShellSettings,
  type ShellSettings,
  type ShellSettingsStore,
} from './settings.js';
import { resetAdministratorPassword } from './passwordReset.js';
import { ServerSupervisor, serverEnvironment, type ServerStartError } from './supervisor.js';
import { trayMenu, trayTooltip, type TrayAction, type TrayState } from './tray.js';

const APP_ID = 'app.tonearm.desktop';
const TOKEN_KEY = 'tonearm.token';

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  runShell();
}

function runShell(): void {
  app.setAppUserModelId(APP_ID);
  const store = new Store<Record<string, unknown>>({ name: 'shell-settings' });
  const settingsStore: ShellSettingsStore = {
    get: (key) => store.get(key),
    set: (key, value) => store.set(key, value),
  };
  let settings = readShellSettings(settingsStore);
  const serverLog = new RotatingLogFile({ directory: app.getPath('logs'), maxBytes: 5 * 1024 * 1024, maxFiles: 3 });
  const supervisor = new ServerSupervisor({
    launcher: utilityProcessLauncher((modulePath, args, options) => utilityProcess.fork(modulePath, args, options)),
    modulePath: path.join(app.getAppPath(), 'dist', 'server', 'index.js'),
    config: () => ({
      ...serverLaunchConfig(settings, app.getPath('userData')),
      uiDir: path.join(app.getAppPath(), 'renderer', 'dist'),
    }),
    log: serverLog,
  });

  let window: BrowserWindow | null = null;
  let tray: Tray | null = null;
  let quitting = false;
  let serverStopped = false;
  const shellState: Omit<TrayState, 'bindAddress' | 'lanUrl' | 'startAtLogin'> = {
    server: 'starting',
    downloads: 'unknown',
  };
  // Notifications are garbage-collected (and their click lost) unless something holds them.
  const shownNotifications = new Set<Notification>();

  /** The window always talks to the server over loopback, whatever address it is bound to. */
  const localUrl = (): string | null =>
    supervisor.address ? `http://127.0.0.1:${supervisor.address.port}${supervisor.address.basePath}` : null;

  const getToken = async (): Promise<string | null> => {
    if (!window || !localUrl() || !window.webContents.getURL().startsWith(localUrl()!)) return null;
    try {
      const token: unknown = await window.webContents.executeJavaScript(
        `localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`,
      );
      return typeof token === 'string' && token.length > 0 ? token : null;
    } catch {
      return null;
    }
  };

  const notifier = new BlockedJobNotifier({
    serverUrl: localUrl,
    getToken,
    notify: ({ title, body, onClick }) => {
      if (!Notification.isSupported()) return;
      const notification = new Notification({ title, body });
      shownNotifications.add(notification);
      notification.on('click', () => {
        shownNotifications.delete(notification);
        onClick();
      });
      notification.on('close', () => shownNotifications.delete(notification));
      notification.show();
    },
    openReview: () => openPage('/review'),
  });
  notifier.on('connected', () => {
    if (shellState.downloads !== 'unknown') return;
    const serverUrl = localUrl();
    void (serverUrl ? downloadWorkerAvailable(serverUrl) : Promise.resolve(false)).then((available) => {
      if (shellState.downloads === 'unknown') shellState.downloads = available ? 'running' : 'unavailable';
      refreshTray();
    });
  });
  notifier.on('unauthorized', () => {
    shellState.downloads = 'unknown';
    refreshTray();
  });

  function currentTrayState(): TrayState {
    const port = supervisor.address?.port;
    const lanUrl = port ? (lanServerUrls(settings.bindAddress, port)[0] ?? null) : null;
    return { ...shellState, bindAddress: settings.bindAddress, lanUrl, startAtLogin: settings.startAtLogin };
  }

  function refreshTray(): void {
    if (!tray) return;
    const state = currentTrayState();
    const template: MenuItemConstructorOptions[] = trayMenu(state).map((item) =>
      item.type === 'separator'
        ? { type: 'separator' }
        : {
            type: item.type,
            label: item.label,
            enabled: item.enabled,
            ...(item.type === 'checkbox' ? { checked: item.checked } : {}),
            ...(item.action ? { click: () => void onTrayAction(item.action!) } : {}),
          },
    );
    tray.setContextMenu(Menu.buildFromTemplate(template));
    tray.setToolTip(trayTooltip(state));
  }

  async function onTrayAction(action: TrayAction): Promise<void> {
    switch (action) {
      case 'open':
        return openPage('/');
      case 'copy-lan-address': {
        const lanUrl = currentTrayState().lanUrl;
        if (lanUrl) clipboard.writeText(lanUrl);
        return;
      }
      case 'pause-downloads':
      case 'resume-downloads':
        return setDownloads(action === 'pause-downloads');
      case 'toggle-start-at-login':
        await changeSettings({ startAtLogin: !settings.startAtLogin });
        return;
      case 'open-logs':
        await shell.openPath(serverLog.directory);
        return;
      case 'reset-admin-password':
        return resetAdminPassword();
      case 'quit':
        app.quit();
        return;
    }
  }

  async function resetAdminPassword(): Promise<void> {
    const { response } = await dialog.showMessageBox({
      type: 'warning',
      title: 'Reset administrator password',
      message: 'Give the administrator account a one-time password?',
      detail: 'Every session of that account ends. Sign in with the one-time password once, then choose a new one.',
      buttons: ['Reset password', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
    });
    if (response !== 0) return;
    try {
      const result = await resetAdministratorPassword({
        launcher: utilityProcessLauncher((modulePath, args, options) => utilityProcess.fork(modulePath, args, options)),
        modulePath: path.join(app.getAppPath(), 'dist', 'server', 'resetPassword.js'),
        env: serverEnvironment(serverLaunchConfig(settings, app.getPath('userData'))),
      });
      const answer = await dialog.showMessageBox({
        type: 'info',
        title: 'One-time password',
        message: `One-time password: ${result.password}`,
        detail: result.note,
        buttons: ['Copy and open Tonearm', 'Close'],
        defaultId: 0,
        cancelId: 1,
      });
      if (answer.response === 0) {
        clipboard.writeText(result.password);
        openPage('/');
      }
    } catch (error) {
      dialog.showErrorBox('Tonearm', error instanceof Error ? error.message : String(error));
    }
  }

  async function setDownloads(paused: boolean): Promise<void> {
    const serverUrl = localUrl();
    const token = await getToken();
    if (!serverUrl || !token) return;
    try {
      await setDownloadsPaused(serverUrl, token, paused);
      shellState.downloads = paused ? 'paused' : 'running';
      refreshTray();
    } catch (error) {
      dialog.showErrorBox('Tonearm', error instanceof Error ? error.message : String(error));
    }
  }

  async function changeSettings(change: unknown): Promise<ShellSettings> {
    const before = settings;
    settings = updateShellSettings(settingsStore, change);
    applyLoginItem();
    refreshTray();
    if (needsServerRestart(before, settings)) {
      shellState.server = 'restarting';
      refreshTray();
      await supervisor.restart().catch(() => {}); // a failure is reported through the 'failed' event
    }
    return settings;
  }

  function applyLoginItem(): void {
    app.setLoginItemSettings({
      openAtLogin: settings.startAtLogin,
      args: settings.startHidden ? ['--hidden'] : [],
    });
  }

  function createWindow(): BrowserWindow {
    const created = new BrowserWindow({
      width: 1280,
      height: 840,
      show: false,
      title: 'Tonearm',
      icon: appIcon(),
      webPreferences: {
        preload: path.join(app.getAppPath(), 'dist', 'main', 'preload.cjs'),
        contextIsolation: true,
        sandbox: true,
      },
    });
    created.setMenuBarVisibility(false);
    // Links away from the server open in the user's browser, so the bridge never reaches other sites.
    created.webContents.setWindowOpenHandler(({ url }) => {
      if (/^https?:\/\//.test(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    created.webContents.on('will-navigate', (event, url) => {
      const base = localUrl();
      if (base && url.startsWith(`${base}/`)) return;
      event.preventDefault();
      if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    });
    // Closing hides to the tray; the page stays loaded so its session token can be read.
    created.on('close', (event) => {
      if (quitting) return;
      event.preventDefault();
      created.hide();
    });
    created.webContents.on('did-finish-load', () => notifier.reconnectNow());
    return created;
  }

  function openPage(pathname: string): void {
    const base = localUrl();
    if (!window || !base) return;
    const target = `${base}${pathname}`;
    if (pathname !== '/' || !window.webContents.getURL().startsWith(base)) void window.loadURL(target);
    window.show();
    window.focus();
  }

  function showWindow(): void {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  }

  async function showStartError(error: ServerStartError): Promise<void> {
    const { response } = await dialog.showMessageBox({
      type: 'error',
      title: 'Tonearm could not start',
      message: error.message,
      detail: error.recentOutput.length > 0 ? `Last output:\n${error.recentOutput.slice(-10).join('\n')}` : '',
      buttons: ['Try again', 'Open logs folder', 'Quit'],
      defaultId: 0,
      cancelId: 2,
    });
    if (response === 0) {
      shellState.server = 'starting';
      refreshTray();
      supervisor.start().catch(() => {});
    } else if (response === 1) {
      await shell.openPath(serverLog.directory);
    } else {
      app.quit();
    }
  }

  function appIcon(): Electron.NativeImage {
    const file = app.isPackaged
      ? path.join(process.resourcesPath, 'icons', 'icon.png')
      : path.join(app.getAppPath(), 'build', 'icon.png');
    return nativeImage.createFromPath(file);
  }

  function trayIcon(): Electron.NativeImage {
    const directory = app.isPackaged
      ? path.join(process.resourcesPath, 'icons')
      : path.join(app.getAppPath(), 'build', 'tray');
    if (process.platform === 'darwin') {
      const image = nativeImage.createFromPath(path.join(directory, 'trayTemplate.png'));
      image.setTemplateImage(true);
      return image;
    }
    return nativeImage.createFromPath(path.join(directory, 'tray.png'));
  }

  function registerSettingsBridge(): void {
    // Only the window showing our own server may read or change the shell settings.
    const fromServer = (event: Electron.IpcMainInvokeEvent): boolean => {
      const base = localUrl();
      return Boolean(base && event.senderFrame?.url.startsWith(`${base}/`));
    };
    ipcMain.handle('tonearm:settings:get', (event) => (fromServer(event) ? settings : null));
    ipcMain.handle('tonearm:settings:update', (event, change: unknown) => {
      if (!fromServer(event)) throw new Error('Not allowed');
      return changeSettings(change);
    });
    ipcMain.handle('tonearm:lan', async (event) => {
      const port = supervisor.address?.port;
      if (!fromServer(event) || !port) return [];
      const urls = lanServerUrls(settings.bindAddress, port);
      const names = lanAddresses();
      return Promise.all(
        urls.map(async (url, index) => ({
          url,
          interfaceName: names[index]?.interfaceName ?? '',
          qrSvg: await lanQrCodeSvg(url),
        })),
      );
    });
  }

  supervisor.on('ready', (address) => {
    shellState.server = 'running';
    refreshTray();
    const base = `http://127.0.0.1:${address.port}${address.basePath}`;
    // After a restart the port may differ (port 0), so the window follows the server.
    if (window && !window.webContents.getURL().startsWith(`${base}/`)) void window.loadURL(`${base}/`);
    notifier.reconnectNow();
  });
  supervisor.on('restarting', () => {
    shellState.server = 'restarting';
    refreshTray();
  });
  supervisor.on('failed', (error) => {
    shellState.server = 'failed';
    refreshTray();
    if (!quitting) void showStartError(error);
  });

  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  app.on('window-all-closed', () => {
    // The server keeps running in the tray until Quit.
  });
  app.on('before-quit', (event) => {
    quitting = true;
    if (serverStopped) return;
    event.preventDefault();
    notifier.stop();
    void supervisor.stop().finally(() => {
      serverStopped = true;
      app.quit();
    });
  });

  void app.whenReady().then(() => {
    registerSettingsBridge();
    tray = new Tray(trayIcon());
    tray.on('click', () => showWindow());
    refreshTray();
    applyLoginItem();
    window = createWindow();
    const startHidden = settings.startHidden || process.argv.includes('--hidden');
    window.once('ready-to-show', () => {
      if (!startHidden) window?.show();
    });
    notifier.start();
    supervisor.start().catch(() => {}); // failures arrive through the 'failed' event
  });
}

// CommonJS, because sandboxed preload scripts cannot be ES modules.
import { contextBridge, ipcRenderer } from 'electron';

/** What the web UI's settings screen can use when it runs inside the desktop app. */
contextBridge.exposeInMainWorld('tonearmDesktop', {
  getSettings: (): Promise<unknown> => ipcRenderer.invoke('tonearm:settings:get'),
  updateSettings: (change: unknown): Promise<unknown> => ipcRenderer.invoke('tonearm:settings:update', change),
  lanAddresses: (): Promise<unknown> => ipcRenderer.invoke('tonearm:lan'),
});

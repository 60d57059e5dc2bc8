import { createStore } from './store';

export type ThemeChoice = 'light' | 'dark' | 'system';
const KEY = 'tonearm.theme';

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export const theme = createStore<ThemeChoice>(stored());

const systemDark = window.matchMedia('(prefers-color-scheme: dark)');

/** The theme in effect: the user's choice, else the system's. */
export function effectiveTheme(choice = theme.get()): 'light' | 'dark' {
  return choice === 'system' ? (systemDark.matches ? 'dark' : 'light') : choice;
}

function apply() {
  document.documentElement.dataset.theme = effectiveTheme();
}

export function setTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // not persisted; still applied for this visit
  }
  theme.set(choice);
}

theme.subscribe(apply);
systemDark.addEventListener('change', apply);
apply();

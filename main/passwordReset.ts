import type { ProcessLauncher } from './serverProcess.js';

export interface PasswordResetResult {
  password: string;
  /** What the script said to the person (whose sessions ended, what to do next). */
  note: string;
}

const PASSWORD_LINE = /^one-time password: (\S+)$/;

/**
 * The tray's "Reset administrator password…": runs the server's reset-password entry
 * (`server/resetPassword.ts`, built to `dist/server/resetPassword.js`) with the server's own
 * environment, so it works on the same data folder whether the server runs or not.
 */
export function resetAdministratorPassword(options: {
  launcher: ProcessLauncher;
  modulePath: string;
  env: Record<string, string>;
  /** A user name; the first active administrator when omitted. */
  username?: string;
}): Promise<PasswordResetResult> {
  const child = options.launcher.fork(options.modulePath, [options.username ?? '--admin'], { env: options.env });
  let password: string | null = null;
  const note: string[] = [];
  child.onStdoutLine((line) => {
    const match = PASSWORD_LINE.exec(line.trim());
    if (match) password = match[1]!;
  });
  child.onStderrLine((line) => note.push(line.replace(/^tonearm: /, '')));
  return new Promise((resolve, reject) => {
    child.onExit(({ code }) => {
      if (code === 0 && password) resolve({ password, note: note.join('\n') });
      else reject(new Error(note.join('\n') || `the password reset stopped (exit ${code ?? 'signal'})`));
    });
  });
}

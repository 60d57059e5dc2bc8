/**
 * What the first start prints after the ready line (`listening on …`, which the desktop supervisor
 * parses and which stays exactly as it is): while onboarding is pending, where to finish set-up and,
 * when the server listens on every interface, that the wizard is open to the whole network.
 */
export function startNotes(options: { url: string; host: string; onboarded: boolean }): string[] {
  if (options.onboarded) return [];
  const everywhere = options.host === '0.0.0.0' || options.host === '::' || options.host === '[::]';
  // On every interface the ready line names 0.0.0.0, which a browser cannot open: name this computer.
  const open = everywhere ? options.url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])/, 'http://localhost') : options.url;
  const lines = [`open ${open} to finish set-up`];
  if (everywhere)
    lines.push(
      'until set-up is finished, anyone on your network can open the set-up wizard and create the administrator: finish it now, or start with TONEARM_HOST=127.0.0.1 until you have',
    );
  return lines;
}

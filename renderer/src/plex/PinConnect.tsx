import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage, Notice, useAction } from '../components/ui';
import { waitForPin, type PinCheck, type StartedPin } from './logic';

/**
 * "Connect with Plex": asks the server for a PIN, opens Plex's approval page (the link stays on
 * screen in case the pop-up was blocked), and polls until the PIN is approved or expires.
 */
export function PinConnect({ label, start, check, onLinked }: { label: string; start: () => Promise<StartedPin>; check: (pin: StartedPin) => Promise<PinCheck>; onLinked: (name: string | null) => void }) {
  const [pin, setPin] = useState<StartedPin | null>(null);
  const [expired, setExpired] = useState<string | null>(null);
  const waiting = useRef<AbortController | null>(null);
  useEffect(() => () => waiting.current?.abort(), []);

  const begin = useAction(async () => {
    setExpired(null);
    waiting.current?.abort();
    const started = await start();
    setPin(started);
    window.open(started.authUrl, '_blank', 'noopener');
    const controller = new AbortController();
    waiting.current = controller;
    const outcome = await waitForPin({ check: () => check(started), expiresAt: started.expiresAt, signal: controller.signal });
    if (controller.signal.aborted) return;
    setPin(null);
    if (outcome.kind === 'linked') onLinked(outcome.name);
    else if (outcome.kind === 'expired') setExpired(outcome.message);
  });

  const cancel = () => {
    waiting.current?.abort();
    setPin(null);
  };

  return (
    <div class="plex-pin">
      {pin ? (
        <>
          <p>
            Approve Tonearm in Plex:{' '}
            <a href={pin.authUrl} target="_blank" rel="noopener noreferrer">
              open the Plex sign-in page
            </a>
            . This page notices the approval by itself.
          </p>
          <p class="muted">
            Waiting for Plex… <button type="button" class="link-button" onClick={cancel}>Cancel</button>
          </p>
        </>
      ) : (
        <button type="button" class="primary" disabled={begin.busy} onClick={() => void begin.trigger()}>
          {label}
        </button>
      )}
      {expired && <Notice tone="warn">{expired}</Notice>}
      <ErrorMessage error={begin.error} />
    </div>
  );
}

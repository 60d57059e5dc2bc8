import type { LanBypassReason } from './lanBypass.js';

/** Why LAN auto-login cannot be switched on, in words (the reason code stays in the error's `code`). */
const INELIGIBLE: Record<Exclude<LanBypassReason, 'active' | 'disabled' | 'not_trusted_network'>, string> = {
  not_onboarded: 'LAN auto-login can be switched on once setup is finished.',
  not_single_user:
    'LAN auto-login is only possible with a single administrator account, and this server has more than one account. Remove the other accounts first.',
  sole_user_not_admin: 'LAN auto-login is only possible with a single administrator account, and the only account is not an administrator.',
};

export function lanIneligibilityMessage(reason: keyof typeof INELIGIBLE): string {
  return INELIGIBLE[reason];
}

import { SettingsPointer } from '../discover/parts';
import { settingPlace, settingsNamedIn, withoutSettingKeys } from '../messages';

/**
 * Why a flow source or template cannot be used, as the server says it ("Focus needs Last.fm: set
 * integrations.lastfm.apiKey in Settings"), in words: "Focus needs Last.fm." and where it is set up
 * (a link for an administrator, "Ask an administrator…" for anyone else). The same for a template
 * and for a disabled source of the form.
 */
export function SourceReason({ reason, id }: { reason: string; id?: string }) {
  const setting = settingsNamedIn(reason)[0];
  return (
    <p class="small warn source-reason" id={id}>
      {withoutSettingKeys(reason)}
      {setting && (
        <>
          {' '}
          <SettingsPointer setting={setting} what={settingPlace(setting)?.what ?? 'the missing setting'} />
        </>
      )}
    </p>
  );
}

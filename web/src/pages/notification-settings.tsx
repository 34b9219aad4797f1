/**
 * The caller's settings (contract 26.3): display name and time zone (PATCH /api/users/me/), and how notifications
 * are e-mailed: instant, a daily digest at an hour of the user's zone, or off, and which kinds are e-mailed at all.
 */
import { api, unwrap } from '../api.js';
import { ActionForm } from '../components/action-form.js';
import { SelectField } from '../components/options.js';
import { clockHour } from '../format.js';
import { KIND_LABELS, KINDS, type NotificationSettings } from '../notices.js';
import { errorsAt, Field, formValues, PageTitle, Show, useAction, useLoad } from '../ui.js';
import { useState } from 'preact/hooks';

const MODES = [
  ['instant', 'Instant (assignments, mentions and SLA at once; the rest in the daily digest)'],
  ['digest', 'Daily digest only'],
  ['off', 'Off (inbox only)'],
] as const;

function zones(current: string): string[] {
  let all: string[] = [];
  try {
    all = Intl.supportedValuesOf('timeZone');
  } catch {
    all = [];
  }
  // 'UTC' is not in every browser's list; the zone the user has is always offered.
  return [...new Set(['UTC', current, ...all])].sort((a, b) => (a === 'UTC' ? -1 : b === 'UTC' ? 1 : a.localeCompare(b)));
}

export function Settings() {
  const me = useLoad(() => unwrap(api().GET('/api/users/me/')), []);
  const settings = useLoad(() => unwrap(api().GET('/api/users/me/notification-settings/')), []);
  const [saved, setSaved] = useState('');
  const profile = useAction(async (form: HTMLFormElement) => {
    setSaved('');
    const v = formValues(form);
    await unwrap(api().PATCH('/api/users/me/', { body: { display_name: v.display_name ?? '', time_zone: v.time_zone ?? 'UTC' } }));
    await me.reload();
    setSaved('Profile saved.');
  });
  const mail = useAction(async (form: HTMLFormElement) => {
    setSaved('');
    const v = formValues(form);
    const kinds = Object.fromEntries(KINDS.map((k) => [k, v[`kind_${k}`] === 'on']));
    const body = { email: v.email as NotificationSettings['email'], digest_hour: Number(v.digest_hour), kinds };
    await unwrap(api().PUT('/api/users/me/notification-settings/', { body }));
    await settings.reload();
    setSaved('Notification settings saved.');
  });
  return (
    <section class="settings">
      <PageTitle>Settings</PageTitle>
      <p class="notice" role="status">
        {saved}
      </p>
      <h2>Profile</h2>
      <Show state={me}>
        {(m) => (
          <ActionForm action={profile} submit="Save profile" busyLabel="Saving…">
            <p class="muted">Signed in as {m.email}</p>
            <Field label="Display name" errors={errorsAt(profile.error, '/display_name')}>
              {(id, by) => <input id={id} name="display_name" required maxLength={100} defaultValue={m.display_name} aria-describedby={by} />}
            </Field>
            <SelectField
              label="Time zone"
              name="time_zone"
              hint="Dates in e-mails and the digest hour follow it"
              items={zones(m.time_zone ?? 'UTC').map((z) => [z, z.replace(/_/g, ' ')] as const)}
              selected={m.time_zone ?? 'UTC'}
              errors={errorsAt(profile.error, '/time_zone')}
            />
          </ActionForm>
        )}
      </Show>
      <h2>E-mail notifications</h2>
      <Show state={settings}>
        {(s) => (
          <ActionForm action={mail} submit="Save notification settings" busyLabel="Saving…">
            <fieldset>
              <legend>Send e-mail</legend>
              {MODES.map(([mode, label]) => (
                <label class="check" key={mode}>
                  <input type="radio" name="email" value={mode} defaultChecked={s.email === mode} /> {label}
                </label>
              ))}
            </fieldset>
            <SelectField
              label="Digest hour"
              name="digest_hour"
              hint="In your time zone"
              items={Array.from({ length: 24 }, (_, h) => [String(h), clockHour(h)] as const)}
              selected={String(s.digest_hour)}
              errors={errorsAt(mail.error, '/digest_hour')}
            />
            <fieldset>
              <legend>E-mail me about</legend>
              <p class="muted">Unticked kinds still reach your inbox.</p>
              <div class="checks">
                {KINDS.map((k) => (
                  <label class="check" key={k}>
                    <input type="checkbox" name={`kind_${k}`} defaultChecked={s.kinds[k] !== false} /> {KIND_LABELS[k]}
                  </label>
                ))}
              </div>
            </fieldset>
          </ActionForm>
        )}
      </Show>
    </section>
  );
}

/**
 * Forgotten passwords (contract 26.5): the form that asks for a link (the answer never says whether the account
 * exists), and the page the link opens, which sets a new password and sends the user to sign in with it.
 */
import { useState } from 'preact/hooks';
import { ApiError, api, setToken, unwrap } from '../api.js';
import { ActionForm } from '../components/action-form.js';
import { Card } from '../components/facts.js';
import { Link, navigate } from '../router.js';
import { errorsAt, Field, formValues, PageTitle, useAction } from '../ui.js';

export function ForgotPassword() {
  const [sentTo, setSentTo] = useState('');
  const send = useAction(async (form: HTMLFormElement) => {
    const email = formValues(form).email ?? '';
    await unwrap(api().POST('/api/auth/password-reset/', { body: { email } }));
    setSentTo(email);
  });
  return (
    <section class="narrow">
      <PageTitle>Reset your password</PageTitle>
      {sentTo ? (
        <Card role="status">
          <p>
            If an account exists for <strong>{sentTo}</strong>, we sent it a link to set a new password. The link is valid for one hour.
          </p>
          <p class="muted">No mail? Check the spam folder, or ask again in a few minutes.</p>
        </Card>
      ) : (
        <>
          <p>Enter the e-mail address of your account and we will send you a link to set a new password.</p>
          <ActionForm action={send} submit="Send reset link" busyLabel="Sending…">
            <Field label="E-mail" errors={errorsAt(send.error, '/email')}>
              {(id, by) => <input id={id} name="email" type="email" autocomplete="email" required aria-describedby={by} />}
            </Field>
          </ActionForm>
        </>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </section>
  );
}

export function ResetPassword({ token }: { token: string }) {
  const [mismatch, setMismatch] = useState(false);
  const reset = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    setMismatch(v.password !== v.confirm);
    if (v.password !== v.confirm) return;
    await unwrap(api().POST('/api/auth/password-reset/confirm/', { body: { token, password: v.password ?? '' } }));
    // Every session of the user ends with the reset: this browser's too.
    setToken(null);
    navigate('/sign-in?reset=1', true);
  });
  // The service answers an unknown, used or expired token with a 400 naming `/token` (410 would say the same).
  const expired = reset.error instanceof ApiError && (reset.error.status === 410 || Boolean(errorsAt(reset.error, '/token')));
  return (
    <section class="narrow">
      <PageTitle>Set a new password</PageTitle>
      {expired ? (
        <Card role="status">
          <p>
            <strong>This link has expired or was already used.</strong>
          </p>
          <p>
            <Link to="/forgot-password">Ask for a new link</Link>
          </p>
        </Card>
      ) : (
        <ActionForm action={reset} submit="Set new password" busyLabel="Saving…">
          <Field label="New password" hint="At least 8 characters" errors={errorsAt(reset.error, '/password')}>
            {(id, by) => <input id={id} name="password" type="password" autocomplete="new-password" required minLength={8} aria-describedby={by} />}
          </Field>
          <Field label="Repeat the new password" errors={mismatch ? ['The two passwords differ.'] : undefined}>
            {(id, by) => <input id={id} name="confirm" type="password" autocomplete="new-password" required minLength={8} aria-describedby={by} />}
          </Field>
        </ActionForm>
      )}
    </section>
  );
}

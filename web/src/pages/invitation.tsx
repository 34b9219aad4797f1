/**
 * The page an invitation's link opens (contract 26.4): the workspace and the role; signed in as the invited e-mail,
 * Accept; signed in as someone else, says so; not signed in, a sign-up form that accepts and signs in at once (or
 * sign in first). An expired or used invitation (410) says so plainly.
 */
import { ApiError, api, getToken, setToken, unwrap } from '../api.js';
import { codeName, dateTime } from '../format.js';
import { ActionForm } from '../components/action-form.js';
import { Card } from '../components/facts.js';
import { Link, navigate } from '../router.js';
import { errorsAt, Field, formValues, Loading, PageTitle, ProblemView, useAction, useLoad } from '../ui.js';

export function Invitation({ token }: { token: string }) {
  const signedIn = Boolean(getToken());
  const inv = useLoad(() => unwrap(api().GET('/api/invitations/{token}/', { params: { path: { token } } })), [token]);
  const me = useLoad(async () => (signedIn ? unwrap(api().GET('/api/users/me/')) : null), [signedIn]);
  const accept = useAction(async () => {
    await unwrap(api().POST('/api/invitations/{token}/accept/', { params: { path: { token } }, body: {} }));
    navigate(`/w/${inv.data!.workspace.slug}`);
  });
  const signUp = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const res = await unwrap(
      api().POST('/api/invitations/{token}/accept/', {
        params: { path: { token } },
        body: { display_name: v.display_name ?? '', password: v.password ?? '' },
      }),
    );
    if ('token' in res) setToken(res.token);
    navigate(`/w/${inv.data!.workspace.slug}`, true);
  });
  const signOut = async () => {
    await api()
      .POST('/api/auth/sign-out/')
      .catch(() => undefined);
    setToken(null);
    navigate(`/invitations/${encodeURIComponent(token)}`, true);
  };
  const here = `/invitations/${encodeURIComponent(token)}`;
  if (inv.error) {
    const gone = inv.error instanceof ApiError && (inv.error.status === 410 || inv.error.status === 404);
    return (
      <section class="narrow">
        <PageTitle>Invitation</PageTitle>
        {gone ? (
          <Card role="status">
            <p>
              <strong>
                {inv.error instanceof ApiError && inv.error.status === 410
                  ? 'This invitation has expired or was already used.'
                  : 'This invitation does not exist (or was revoked).'}
              </strong>
            </p>
            <p>Ask an admin of the workspace to send you a new one.</p>
          </Card>
        ) : (
          <ProblemView error={inv.error} />
        )}
        <p>{signedIn ? <Link to="/">Your workspaces</Link> : <Link to="/sign-in">Sign in</Link>}</p>
      </section>
    );
  }
  const i = inv.data;
  if (!i || me.loading) return <Loading />;
  const mine = me.data && me.data.email.toLowerCase() === i.email.toLowerCase();
  return (
    <section class="narrow">
      <PageTitle>{`Join ${i.workspace.name}`}</PageTitle>
      <p>
        <strong>{i.email}</strong> is invited to the workspace <strong>{i.workspace.name}</strong> ({i.workspace.slug}) as{' '}
        <strong>{codeName(i.role).toLowerCase()}</strong>.
      </p>
      <p class="muted">The invitation is valid until {dateTime(i.expires_at)}.</p>
      {me.data ? (
        mine ? (
          <>
            <ProblemView error={accept.error} />
            <button type="button" disabled={accept.busy} onClick={() => void accept.run()}>
              Accept invitation
            </button>
          </>
        ) : (
          <Card role="status">
            <p>
              You are signed in as <strong>{me.data.email}</strong>, but this invitation is for <strong>{i.email}</strong>.
            </p>
            <p>Sign out, then open the link again to accept it as {i.email}.</p>
            <button type="button" class="secondary" onClick={() => void signOut()}>
              Sign out
            </button>
          </Card>
        )
      ) : (
        <>
          <h2>Create your account</h2>
          <ActionForm action={signUp} submit="Create account and join" busyLabel="Joining…">
            <Field label="E-mail">{(id) => <input id={id} type="email" value={i.email} readOnly autocomplete="username" />}</Field>
            <Field label="Name" errors={errorsAt(signUp.error, '/display_name')}>
              {(id, by) => <input id={id} name="display_name" autocomplete="name" required aria-describedby={by} />}
            </Field>
            <Field label="Password" hint="At least 8 characters" errors={errorsAt(signUp.error, '/password')}>
              {(id, by) => <input id={id} name="password" type="password" autocomplete="new-password" required minLength={8} aria-describedby={by} />}
            </Field>
          </ActionForm>
          <p>
            Already have an account for {i.email}? <Link to={`/sign-in?next=${encodeURIComponent(here)}`}>Sign in to accept</Link>
          </p>
        </>
      )}
    </section>
  );
}

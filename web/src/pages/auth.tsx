/** Sign in and sign up (contract 2): the two forms that give the console its token. */
import { api, setToken, unwrap } from '../api.js';
import { Link, navigate } from '../router.js';
import { ActionForm } from '../components/action-form.js';
import { Field, formValues, PageTitle, useAction } from '../ui.js';

/** Where to go after signing in: `?next=/invitations/...` (a path of the console only), else the workspaces. */
function nextPath(query: URLSearchParams): string {
  const next = query.get('next') ?? '';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignIn() {
  const query = new URLSearchParams(location.search);
  const action = useAction(
    async (form: HTMLFormElement) => {
      const v = formValues(form);
      const { token } = await unwrap(api().POST('/api/auth/sign-in/', { body: { email: v.email ?? '', password: v.password ?? '' } }));
      setToken(token);
      navigate(nextPath(query), true);
    },
    { show401: true },
  );
  return (
    <section class="narrow">
      <PageTitle>Sign in</PageTitle>
      {query.get('reset') ? (
        <p class="card" role="status">
          Your password was changed. Sign in with the new one.
        </p>
      ) : null}
      <ActionForm action={action} submit="Sign in" busyLabel="Signing in…">
        <Field label="E-mail">{(id) => <input id={id} name="email" type="email" autocomplete="email" required />}</Field>
        <Field label="Password">{(id) => <input id={id} name="password" type="password" autocomplete="current-password" required />}</Field>
      </ActionForm>
      <p>
        <Link to="/forgot-password">Forgot password?</Link>
      </p>
      <p>
        No account? <Link to="/sign-up">Sign up</Link>
      </p>
    </section>
  );
}

export function SignUp() {
  const action = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const { token } = await unwrap(
      api().POST('/api/auth/sign-up/', { body: { email: v.email ?? '', password: v.password ?? '', display_name: v.display_name ?? '' } }),
    );
    setToken(token);
    navigate('/', true);
  });
  return (
    <section class="narrow">
      <PageTitle>Sign up</PageTitle>
      <ActionForm action={action} submit="Create account" busyLabel="Creating account…">
        <Field label="Name">{(id) => <input id={id} name="display_name" autocomplete="name" required />}</Field>
        <Field label="E-mail">{(id) => <input id={id} name="email" type="email" autocomplete="email" required />}</Field>
        <Field label="Password" hint="At least 8 characters">
          {(id) => <input id={id} name="password" type="password" autocomplete="new-password" required />}
        </Field>
      </ActionForm>
      <p>
        Have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </section>
  );
}

import { api, setToken, unwrap } from '../api.js';
import { Link, navigate } from '../router.js';
import { ActionForm } from '../components/action-form.js';
import { Field, formValues, PageTitle, useAction } from '../ui.js';

export function SignIn() {
  const action = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const { token } = await unwrap(api().POST('/api/auth/sign-in/', { body: { email: v.email ?? '', password: v.password ?? '' } }));
    setToken(token);
    navigate('/', true);
  });
  return (
    <section class="narrow">
      <PageTitle>Sign in</PageTitle>
      <ActionForm action={action} submit="Sign in" busyLabel="Signing in…">
        <Field label="E-mail">{(id) => <input id={id} name="email" type="email" autocomplete="email" required />}</Field>
        <Field label="Password">{(id) => <input id={id} name="password" type="password" autocomplete="current-password" required />}</Field>
      </ActionForm>
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

import { api, unwrap } from '../api.js';
import { Link, navigate } from '../router.js';
import { Empty, Field, formValues, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';

export function Workspaces() {
  const list = useLoad(() => unwrap(api().GET('/api/workspaces/')), []);
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const ws = await unwrap(api().POST('/api/workspaces/', { body: { name: v.name ?? '', slug: v.slug ?? '' } }));
    navigate(`/w/${ws.slug}`);
  });
  return (
    <section>
      <PageTitle>Workspaces</PageTitle>
      <Show state={list}>
        {(items) =>
          items.length ? (
            <ul class="cards">
              {items.map((w) => (
                <li key={w.id}>
                  <Link to={`/w/${w.slug}`}>{w.name}</Link> <span class="muted">{w.slug}</span>
                </li>
              ))}
            </ul>
          ) : (
            <Empty>You are not in any workspace yet. Create one below.</Empty>
          )
        }
      </Show>
      <h2>New workspace</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(e.currentTarget);
        }}
      >
        <Field label="Workspace name">{(id) => <input id={id} name="name" required />}</Field>
        <Field label="Slug" hint="lower case letters, digits and dashes">
          {(id) => <input id={id} name="slug" required pattern="[a-z0-9][a-z0-9-]{1,47}" />}
        </Field>
        <button type="submit" disabled={create.busy}>
          Create workspace
        </button>
      </form>
      <ProblemView error={create.error} />
    </section>
  );
}

export function Projects({ slug }: { slug: string }) {
  const list = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } })), [slug]);
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const p = await unwrap(
      api().POST('/api/workspaces/{slug}/projects/', {
        params: { path: { slug } },
        body: { name: v.name ?? '', identifier: v.identifier ?? '', description: v.description ?? '' },
      }),
    );
    navigate(`/w/${slug}/p/${p.id}/issues`);
  });
  return (
    <section>
      <PageTitle>Projects</PageTitle>
      <Show state={list}>
        {(items) =>
          items.length ? (
            <ul class="cards">
              {items.map((p) => (
                <li key={p.id}>
                  <Link to={`/w/${slug}/p/${p.id}/issues`}>{p.name}</Link> <span class="muted">{p.identifier}</span>
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No projects yet. Create the first one below.</Empty>
          )
        }
      </Show>
      <h2>New project</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(e.currentTarget);
        }}
      >
        <Field label="Project name">{(id) => <input id={id} name="name" required />}</Field>
        <Field label="Identifier" hint="e.g. WEB (capital letters and digits)">
          {(id) => <input id={id} name="identifier" required pattern="[A-Z][A-Z0-9]{0,9}" />}
        </Field>
        <Field label="Description">{(id) => <input id={id} name="description" />}</Field>
        <button type="submit" disabled={create.busy}>
          Create project
        </button>
      </form>
      <ProblemView error={create.error} />
    </section>
  );
}

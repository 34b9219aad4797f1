/** The workspaces list (the console's start page, with a form for a new one) and a workspace's projects. */
import { api, unwrap } from '../api.js';
import { Link, navigate } from '../router.js';
import { CreateForm } from '../components/action-form.js';
import { CardList } from '../components/list-view.js';
import { Field, formValues, PageTitle, useAction, useLoad } from '../ui.js';

export function Workspaces() {
  const list = useLoad(() => unwrap(api().GET('/api/workspaces/')), []);
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const ws = await unwrap(api().POST('/api/workspaces/', { body: { name: v.name ?? '', slug: v.slug ?? '' } }));
    // A new workspace has nothing to show on its home yet: its first project comes first.
    navigate(`/w/${ws.slug}/projects`);
  });
  return (
    <section>
      <PageTitle>Workspaces</PageTitle>
      <CardList state={list} empty="You are not in any workspace yet. Create one below.">
        {(w) => (
          <>
            <Link to={`/w/${w.slug}`}>{w.name}</Link> <span class="muted">{w.slug}</span>
          </>
        )}
      </CardList>
      <CreateForm title="New workspace" action={create} submit="Create workspace">
        <Field label="Workspace name">{(id) => <input id={id} name="name" required />}</Field>
        <Field label="Slug" hint="lower case letters, digits and dashes">
          {(id) => <input id={id} name="slug" required pattern="[a-z0-9][a-z0-9-]{1,47}" />}
        </Field>
      </CreateForm>
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
      <CardList state={list} empty="No projects yet. Create the first one below.">
        {(p) => (
          <>
            <Link to={`/w/${slug}/p/${p.id}/issues`}>{p.name}</Link> <span class="muted">{p.identifier}</span>
          </>
        )}
      </CardList>
      <CreateForm title="New project" action={create} submit="Create project">
        <Field label="Project name">{(id) => <input id={id} name="name" required />}</Field>
        <Field label="Identifier" hint="e.g. WEB (capital letters and digits)">
          {(id) => <input id={id} name="identifier" required pattern="[A-Z][A-Z0-9]{0,9}" />}
        </Field>
        <Field label="Description">{(id) => <input id={id} name="description" />}</Field>
      </CreateForm>
    </section>
  );
}

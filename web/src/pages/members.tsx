/**
 * The members of a workspace (contract 3, 26.4): everyone with a role; for admins, role changes and removal, an
 * invitation by e-mail, and the pending invitations with resend (a new link; the old one dies) and revoke.
 */
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { codeName, date, dateTime } from '../format.js';
import { CreateForm } from '../components/action-form.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { byId, DataTable } from '../components/data-table.js';
import { SelectField } from '../components/options.js';
import { Empty, errorsAt, Field, formValues, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';

const ROLES = ['admin', 'member', 'guest'] as const;
type Role = (typeof ROLES)[number];

export function Members({ slug }: { slug: string }) {
  const data = useLoad(async () => {
    const c = api();
    const [me, members] = await Promise.all([
      unwrap(c.GET('/api/users/me/')),
      unwrap(c.GET('/api/workspaces/{slug}/members/', { params: { path: { slug } } })),
    ]);
    return { me, members, admin: members.some((m) => m.user_id === me.id && m.role === 'admin') };
  }, [slug]);
  const admin = data.data?.admin ?? false;
  const invitations = useLoad(
    async () => (admin ? unwrap(api().GET('/api/workspaces/{slug}/invitations/', { params: { path: { slug } } })) : []),
    [slug, admin],
  );
  const [notice, setNotice] = useState('');
  const change = useAction(async (run: () => Promise<unknown>, done: string) => {
    setNotice('');
    await run();
    await Promise.all([data.reload(), invitations.reload()]);
    setNotice(done);
  });
  const invite = useAction(async (form: HTMLFormElement) => {
    setNotice('');
    const v = formValues(form);
    await unwrap(
      api().POST('/api/workspaces/{slug}/invitations/', { params: { path: { slug } }, body: { email: v.email ?? '', role: (v.role ?? 'member') as Role } }),
    );
    form.reset();
    await invitations.reload();
    setNotice(`Invitation sent to ${v.email}.`);
  });
  const path = (userId: string) => ({ params: { path: { slug, userId } } });
  const inv = (invitationId: string) => ({ params: { path: { slug, invitationId } } });
  return (
    <section class="members">
      <PageTitle>Members</PageTitle>
      <p class="notice" role="status">
        {notice}
      </p>
      <ProblemView error={change.error} />
      <Show state={data}>
        {({ me, members }) => (
          <DataTable
            label="Members"
            rows={members}
            rowKey={(m) => m.user_id}
            columns={[
              { header: 'Name', cell: (m) => m.display_name || m.email },
              { header: 'E-mail', cell: (m) => <span class="break">{m.email}</span> },
              {
                header: 'Role',
                cell: (m) =>
                  admin ? (
                    <>
                      <label class="sr-only" for={`role-${m.user_id}`}>
                        Role of {m.display_name || m.email}
                      </label>
                      <select
                        id={`role-${m.user_id}`}
                        value={m.role}
                        disabled={change.busy}
                        onChange={(e) => {
                          const role = e.currentTarget.value as Role;
                          void change.run(
                            () => unwrap(api().PATCH('/api/workspaces/{slug}/members/{userId}/', { ...path(m.user_id), body: { role } })),
                            `${m.display_name || m.email} is now ${codeName(role).toLowerCase()}.`,
                          );
                        }}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {codeName(r)}
                          </option>
                        ))}
                      </select>
                    </>
                  ) : (
                    codeName(m.role)
                  ),
              },
              { header: 'Since', cell: (m) => date(m.created_at) },
              ...(admin
                ? [
                    {
                      header: <span class="sr-only">Actions</span>,
                      cell: (m: (typeof members)[number]) =>
                        m.user_id === me.id ? null : (
                          <ConfirmButton
                            question={`Remove ${m.display_name || m.email} from the workspace?`}
                            label={`Remove ${m.display_name || m.email}`}
                            disabled={change.busy}
                            onConfirm={() =>
                              void change.run(
                                () => unwrap(api().DELETE('/api/workspaces/{slug}/members/{userId}/', path(m.user_id))),
                                `${m.display_name || m.email} was removed.`,
                              )
                            }
                          >
                            Remove
                          </ConfirmButton>
                        ),
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Show>
      {admin ? (
        <>
          <CreateForm title="Invite someone" action={invite} submit="Send invitation">
            <Field label="E-mail" errors={errorsAt(invite.error, '/email')}>
              {(id, by) => <input id={id} name="email" type="email" required aria-describedby={by} />}
            </Field>
            {/* Member first: the form's default, also after it is reset. */}
            <SelectField label="Role" name="role" items={(['member', 'guest', 'admin'] as const).map((r) => [r, codeName(r)] as const)} />
          </CreateForm>
          <h2>Pending invitations</h2>
          <Show state={invitations}>
            {(list) =>
              list.length ? (
                <DataTable
                  label="Pending invitations"
                  rows={list}
                  rowKey={byId}
                  columns={[
                    { header: 'E-mail', cell: (i) => <span class="break">{i.email}</span> },
                    { header: 'Role', cell: (i) => codeName(i.role) },
                    { header: 'Sent', cell: (i) => dateTime(i.created_at) },
                    { header: 'Expires', cell: (i) => dateTime(i.expires_at) },
                    {
                      header: <span class="sr-only">Actions</span>,
                      cell: (i) => (
                        <span class="row-actions">
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Resend to ${i.email}`}
                            disabled={change.busy}
                            onClick={() =>
                              void change.run(
                                () => unwrap(api().POST('/api/workspaces/{slug}/invitations/{invitationId}/resend/', inv(i.id))),
                                `A new invitation was sent to ${i.email}.`,
                              )
                            }
                          >
                            Resend
                          </button>
                          <ConfirmButton
                            question={`Revoke the invitation of ${i.email}?`}
                            label={`Revoke ${i.email}`}
                            disabled={change.busy}
                            onConfirm={() =>
                              void change.run(
                                () => unwrap(api().DELETE('/api/workspaces/{slug}/invitations/{invitationId}/', inv(i.id))),
                                `The invitation of ${i.email} was revoked.`,
                              )
                            }
                          >
                            Revoke
                          </ConfirmButton>
                        </span>
                      ),
                    },
                  ]}
                />
              ) : (
                <Empty>No pending invitations.</Empty>
              )
            }
          </Show>
        </>
      ) : null}
    </section>
  );
}

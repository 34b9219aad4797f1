import { describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();
const path = (slug: string) => `/api/workspaces/${slug}/billing/profile/`;

const PROFILE = {
  legal_name: 'Çağrı Şenöz Yazılım A.Ş.',
  tax_id: '4540536920',
  tax_office: 'Kadıköy',
  address_line: 'Moda Cad. No: 12',
  city: 'İstanbul',
  postal_code: '34710',
  country: 'TR',
  email: 'fatura@example.com',
};

describe('billing profile (contract 19.5)', () => {
  it('answers every field null but country TR before the first PUT, then what was put', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const empty = await api.get(path(ws.slug), { token: ws.admin.token });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({
      legal_name: null,
      tax_id: null,
      tax_office: null,
      address_line: null,
      city: null,
      postal_code: null,
      country: 'TR',
      email: null,
    });

    const put = await api.put(path(ws.slug), PROFILE, { token: ws.admin.token });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual(PROFILE);
    expect((await api.get(path(ws.slug), { token: ws.admin.token })).body).toEqual(PROFILE);

    // PUT replaces: left-out fields become null, the country TR; an individual's TCKN is a tax id too
    const person = await api.put(path(ws.slug), { legal_name: 'Ayşe Yılmaz', tax_id: '10000000146' }, { token: ws.admin.token });
    expect(person.status, person.text).toBe(200);
    expect(person.body).toEqual({
      ...Object.fromEntries(Object.keys(PROFILE).map((k) => [k, null])),
      legal_name: 'Ayşe Yılmaz',
      tax_id: '10000000146',
      country: 'TR',
    });

    // outside Turkey the tax id is the buyer's own affair
    const abroad = await api.put(path(ws.slug), { legal_name: 'Acme GmbH', tax_id: 'DE123456789', country: 'DE' }, { token: ws.admin.token });
    expect(abroad.status, abroad.text).toBe(200);
    expect(abroad.body).toMatchObject({ tax_id: 'DE123456789', country: 'DE' });
  });

  it('answers 400 validation_failed naming the field', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...PROFILE, tax_id: '4540536921' }, '/tax_id'], // VKN with a wrong check digit
      [{ ...PROFILE, tax_id: '10000000147' }, '/tax_id'], // TCKN with a wrong check digit
      [{ ...PROFILE, tax_id: '01000000146' }, '/tax_id'], // TCKN starting with 0
      [{ ...PROFILE, tax_id: '123456789' }, '/tax_id'],
      [{ ...PROFILE, tax_id: 'ABCDEFGHIJ' }, '/tax_id'],
      [{ ...PROFILE, email: 'not-an-address' }, '/email'],
      [{ ...PROFILE, email: 'a b@example.com' }, '/email'],
      [{ ...PROFILE, email: 'x'.repeat(250) + '@example.com' }, '/email'],
      [{ ...PROFILE, legal_name: '' }, '/legal_name'],
      [{ ...PROFILE, legal_name: '   ' }, '/legal_name'],
      [{ ...PROFILE, legal_name: 'x'.repeat(256) }, '/legal_name'],
      [{ ...PROFILE, country: 'Turkey' }, '/country'],
      [{ ...PROFILE, legal_name: undefined }, '/legal_name'],
    ];
    for (const [body, field] of cases) {
      const res = await api.put(path(ws.slug), body, { token: ws.admin.token });
      expectProblem(res, 400, 'validation_failed');
      expect(
        res.body.errors.map((e: { path: string }) => e.path),
        `${JSON.stringify(body)}`,
      ).toContain(field);
    }
    // every bad field at once
    const both = await api.put(path(ws.slug), { ...PROFILE, tax_id: '4540536921', email: 'a@b' }, { token: ws.admin.token });
    expectProblem(both, 400, 'validation_failed');
    expect(both.body.errors.map((e: { path: string }) => e.path)).toEqual(['/tax_id', '/email']);
    // nothing was stored
    expect((await api.get(path(ws.slug), { token: ws.admin.token })).body.legal_name).toBeNull();
  });

  it('is for admins: members and guests 403, other workspaces 404', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const other = await createWorkspace(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    for (const user of [member, guest]) {
      expectProblem(await api.get(path(ws.slug), { token: user.token }), 403, 'forbidden');
      expectProblem(await api.put(path(ws.slug), PROFILE, { token: user.token }), 403, 'forbidden');
    }
    // the admin of another workspace cannot read or write this one
    expectProblem(await api.get(path(ws.slug), { token: other.admin.token }), 404, 'not_found');
    expectProblem(await api.put(path(ws.slug), PROFILE, { token: other.admin.token }), 404, 'not_found');
    // and each workspace keeps its own profile
    await api.put(path(other.slug), { ...PROFILE, legal_name: 'Other Ltd.' }, { token: other.admin.token });
    expect((await api.get(path(ws.slug), { token: ws.admin.token })).body.legal_name).toBeNull();
    // without the trailing slash too
    expect((await api.get(path(other.slug).replace(/\/$/, ''), { token: other.admin.token })).body.legal_name).toBe('Other Ltd.');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { expectAccessible, hasChromium, type Harness, startHarness, tabTo } from './harness.js';

describe.skipIf(!hasChromium)('the webhooks pages in Chromium', () => {
  let h: Harness;
  let receiver: Receiver;
  let firstSecret = '';
  let webhookId = '';
  let projectId = '';

  beforeAll(async () => {
    h = await startHarness('webhooks');
    receiver = await startReceiver();
    h.page.on('dialog', (d) => void d.accept());
    const p = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/`, { name: 'Hooks', identifier: 'HK' }, { token: h.token });
    projectId = p.body.id;
  });

  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('shows the empty list, then the API field errors next to the URL and the events', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/webhooks`));
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    await expectAccessible(page, 'the empty webhooks list');
    await h.shot('empty');
    await page.evaluate(() => document.querySelectorAll('form').forEach((f) => f.setAttribute('novalidate', '')));
    // No event chosen: the API names /event_types, shown in the events fieldset.
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('validation_failed');
    expect(await alert.textContent()).toContain('/event_types');
    expect(await page.locator('fieldset .field-error').textContent()).not.toBe('');
    // An event, but an ftp URL: the message for /url is under the URL field, and the control points at it.
    await page.getByLabel('issue.created').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await alert.filter({ hasText: '/url' }).waitFor();
    const describedBy = await page.getByLabel('Endpoint URL').getAttribute('aria-describedby');
    expect(describedBy).toMatch(/-err/);
    const fieldError = page.locator(`[id="${describedBy!.split(' ').pop()}"]`);
    expect((await fieldError.textContent())?.length).toBeGreaterThan(0);
    expect(await page.locator('fieldset .field-error').count()).toBe(0);
    await expectAccessible(page, 'the webhook form with field errors');
    await h.shot('field-errors');
  });

  it('adds an endpoint and shows its secret once', async () => {
    const { page } = h;
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill('Receiver of the browser test');
    await page.getByLabel('comment.created').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.locator('.secret-value');
    await secret.waitFor();
    firstSecret = (await secret.textContent()) ?? '';
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    await page.getByRole('link', { name: receiver.url }).first().waitFor();
    expect(await page.locator('.cards').textContent()).toContain('issue.created, comment.created');
    await expectAccessible(page, 'the new secret');
    await h.shot('created-secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.locator('.secret-value').count()).toBe(0);
    await page.reload();
    await page.getByRole('link', { name: receiver.url }).waitFor();
    expect(await page.getByText('whsec_').count()).toBe(0); // never shown again
  });

  it('pings the endpoint by keyboard and sees the ping in its delivery log', async () => {
    const { page } = h;
    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { name: `Endpoint ${receiver.url}` }).waitFor();
    webhookId = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByText('No deliveries yet').waitFor();
    await tabTo(page, 'Send ping');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Ping' }).getByText('succeeded').waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Ping' }).textContent()).toContain('HTTP 200');
    const row = page.getByRole('row', { name: /webhook\.ping/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Succeeded');
    expect(receiver.received.some((r) => r.json?.type === 'webhook.ping')).toBe(true);
    await expectAccessible(page, 'the endpoint after a ping');
    await h.shot('ping-log');
  });

  it('shows a failed attempt in the detail, and redelivers it', async () => {
    const { page } = h;
    receiver.fallback = { status: 500 };
    const issue = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/${projectId}/issues/`, { name: 'Hook me' }, { token: h.token });
    expect(issue.status).toBe(201);
    await receiver.waitFor(2);
    // The delivery is pending (its retry waits on the service's clock, which the test does not move).
    await page.getByLabel('Status').selectOption('pending');
    await page.waitForURL(/status=pending/);
    const row = page.getByRole('row', { name: /issue\.created/ });
    for (let i = 0; i < 20 && !(await row.textContent().catch(() => ''))?.includes('HTTP 500'); i++) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(150);
    }
    expect(await row.textContent()).toContain('HTTP 500');
    expect(await page.getByRole('row', { name: /webhook\.ping/ }).count()).toBe(0);
    await expectAccessible(page, 'the pending deliveries');
    await h.shot('log-pending');
    await row.getByRole('link', { name: 'issue.created' }).click();
    await page.getByRole('heading', { name: 'Delivery issue.created' }).waitFor();
    expect(await page.locator('.payload').textContent()).toContain('"Hook me"');
    expect(await page.getByRole('row', { name: /HTTP 500/ }).count()).toBe(1);
    await expectAccessible(page, 'a failed delivery');
    receiver.fallback = { status: 204 };
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.locator('.limits').getByText('Succeeded', { exact: true }).waitFor();
    expect(await page.getByRole('row', { name: /HTTP 204/ }).count()).toBe(1);
    expect(await page.locator('.limits').textContent()).toContain('HTTP 204');
    const sent = receiver.received.filter((r) => r.json?.type === 'issue.created');
    expect(new Set(sent.map((r) => r.headers['webhook-id'])).size).toBe(1); // same webhook-id on the redelivery
    await expectAccessible(page, 'a redelivered delivery');
    await h.shot('delivery-detail');
    await h.checkPhone('delivery', new URL(page.url()).pathname.replace(/^\/app/, ''), async (p) => {
      await p.locator('.payload').waitFor();
      await expectAccessible(p, 'a delivery on a phone');
    });
  });

  it('pages through the delivery log', async () => {
    const { page } = h;
    receiver.fallback = { status: 200 };
    for (let i = 0; i < 21; i++) {
      const res = await h.ctx.api.post(`/api/workspaces/${h.slug}/webhooks/${webhookId}/ping/`, undefined, { token: h.token });
      expect(res.status).toBe(201);
    }
    await page.goto(h.app(`/w/${h.slug}/webhooks/${webhookId}`));
    const pager = page.getByRole('navigation', { name: 'Delivery pages' });
    await pager.getByText('1–20 of 23').waitFor();
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('21–23 of 23').waitFor();
    expect(page.url()).toContain('offset=20');
    expect(await page.locator('tbody tr').count()).toBe(3);
    await expectAccessible(page, 'the second page of deliveries');
    await page.getByLabel('Status').selectOption('succeeded');
    await page.waitForURL((u) => u.search === '?status=succeeded');
    await pager.getByText('1–20 of 23').waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No failed deliveries.').waitFor();
    await expectAccessible(page, 'no failed deliveries');
  });

  it('edits the endpoint (description, events, off) and rotates its secret', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/webhooks/${webhookId}`));
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Description').fill('Renamed receiver');
    await page.getByLabel('All events').check();
    await page.getByLabel('Active').uncheck();
    await expectAccessible(page, 'the endpoint being edited');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByText('Renamed receiver').waitFor();
    await page.locator('main').getByText('Off', { exact: true }).waitFor();
    const saved = await h.ctx.api.get(`/api/workspaces/${h.slug}/webhooks/${webhookId}/`, { token: h.token });
    expect(saved.body).toMatchObject({ description: 'Renamed receiver', event_types: ['*'], is_active: false });
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const secret = page.locator('.secret-value');
    await secret.waitFor();
    const rotated = (await secret.textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(firstSecret);
    await h.shot('endpoint-edited');
    await expectAccessible(page, 'the rotated secret');
    await h.checkPhone('endpoint', `/w/${h.slug}/webhooks/${webhookId}`, async (p) => {
      await p.getByRole('region', { name: 'Deliveries' }).waitFor();
      await expectAccessible(p, 'the endpoint on a phone');
    });
    await h.checkPhone('list', `/w/${h.slug}/webhooks`, async (p) => {
      await p.getByRole('link', { name: receiver.url }).waitFor();
      await expectAccessible(p, 'the webhooks list on a phone');
    });
  });

  it('deletes the endpoint', async () => {
    const { page } = h;
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    const res = await h.ctx.api.get(`/api/workspaces/${h.slug}/webhooks/${webhookId}/`, { token: h.token });
    expect(res.status).toBe(404);
  });
});

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCALAR_EVAL_PROBE } from '../../src/http/openapi.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('/docs', () => {
  it('works offline: the page and its script come from this service, with no fonts, buttons or telemetry of outside hosts', async () => {
    const { api } = ctx();
    const page = await api.get('/docs/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    // No absolute URL at all in the page: every script is relative to /docs/.
    expect(page.text).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    const scripts = [...page.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const res = await api.get(new URL(src, `${api.baseUrl}/docs/`).pathname);
      expect(res.status).toBe(200);
    }
    const config = page.text.replace(/\s+/g, '');
    expect(config).toContain('"withDefaultFonts":false');
    expect(config).toContain('"hideClientButton":true');
    expect(config).toContain('"showDeveloperTools":"never"');
    expect(config).toContain('"telemetry":false');
    expect(config).toContain('"url":"/openapi.json"');
  });

  it("serves the reference's script without its eval probe (the one CSP violation Chromium would report), the rest unchanged", async () => {
    const { api } = ctx();
    const pluginEntry = fileURLToPath(import.meta.resolve('@scalar/fastify-api-reference'));
    const bundlePath = join(dirname(pluginEntry), 'js', 'standalone.js');
    const bundle = readFileSync(bundlePath, 'utf8');
    // When an upgrade drops or rewrites the probe, this fails and the next look decides what to do.
    expect(bundle.split(SCALAR_EVAL_PROBE)).toHaveLength(2);
    const served = await api.get('/docs/js/scalar.js');
    expect(served.status).toBe(200);
    expect(served.text).not.toContain('new Function(');
    expect(served.text).toBe(bundle.replace(SCALAR_EVAL_PROBE, 'return!1'));
  });
});

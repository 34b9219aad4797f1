import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { openApiPath, operationIdFor } from './operation-ids.js';

/**
 * A query parameter with a default (`offset`, `per_page`, ...) need not be sent: the validator fills it in. The
 * schemas list it as required so handlers see it typed as present; the document says what a caller must send.
 */
function optionalDefaults(querystring: unknown): unknown {
  const q = querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined;
  if (!q?.properties || !q.required) return undefined;
  return { ...q, required: q.required.filter((name) => q.properties![name]?.default === undefined) };
}

/**
 * The reference's bundle carries zod's `allowsEval` probe (`new Function("")` in a try): under the pages' CSP (no
 * 'unsafe-eval') it fails as intended and zod parses without compiled code, but Chromium still reports a CSP
 * violation for it. The probe's answer is known ahead (eval is not allowed), so the served script says so instead of
 * asking; anything else in the bundle is unchanged. A newer bundle without this exact text is served as it is (a
 * test fails then, so the next upgrade looks again).
 */
export const SCALAR_EVAL_PROBE = 'try{return new Function(""),!0}catch(e){return!1}';
let probeFree: { from: string; to: string } | undefined;
function withoutEvalProbe(payload: string): string {
  if (probeFree?.from === payload) return probeFree.to;
  const to = payload.replace(SCALAR_EVAL_PROBE, 'return!1');
  probeFree = { from: payload, to };
  return to;
}

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Work-Item Service',
        version: '0.1.0',
        description:
          'SLA policies and trackers, custom properties, project baselines and workspace billing (PayTR). ' +
          'Errors are RFC 9457 problem+json. Every path also works without its trailing slash.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Session token or personal API token' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? route.method[0]! : route.method;
      const operationId = (schema as { operationId?: string } | undefined)?.operationId ?? operationIdFor(method, openApiPath(url));
      const querystring = optionalDefaults((schema as { querystring?: unknown } | undefined)?.querystring);
      // A body the route reads as a stream (an upload) is described for the document only, never validated.
      const body = (route.config as { openapiBody?: unknown } | undefined)?.openapiBody;
      return { schema: { ...schema, operationId, ...(querystring ? { querystring } : {}), ...(body ? { body } : {}) } as typeof schema, url };
    },
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  app.addHook('onRoute', (route) => {
    if (route.url !== '/docs/js/scalar.js') return;
    const existing = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    const strip = (_req: unknown, _reply: unknown, payload: unknown, done: (err: null, payload: unknown) => void) =>
      done(null, typeof payload === 'string' ? withoutEvalProbe(payload) : payload);
    route.onSend = [...existing, strip as never];
  });
  await app.register(scalar, {
    routePrefix: '/docs',
    // Offline: the script is served from this package, the fonts are the system's, and neither the client button nor
    // the developer tools (share/deploy on scalar.com) nor telemetry point at an outside service.
    configuration: {
      url: '/openapi.json',
      title: 'Work-Item Service API',
      withDefaultFonts: false,
      hideClientButton: true,
      showDeveloperTools: 'never',
      telemetry: false,
    },
    hooks: {},
  });
}

import { beforeAll, describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import { tokenKubeConfig, uniqueName } from '@argocd-cluster-registrar/testkit';
import { classifyApiError, classifyStatusObject, diagnoseConnection } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import { createSecret, listNamespaces, listSecrets, readSecret } from './kube-api.js';
import { kubeClusterFromText } from './kube-config.js';
import { kubeRequest } from './kube-http.js';
import type { KubeSecret } from '../kube-objects.js';
import { accessFromText, createNamespace, host, opaque } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

const SECRET_VALUE = 'c2VjcmV0LXRoYXQtbXVzdC1ub3QtbGVhaw';

async function failureOf(request: Promise<unknown>): Promise<ApiFailure> {
  try {
    await request;
  } catch (err) {
    return classifyApiError(err);
  }
  throw new Error('the request succeeded');
}

const asKube = (secret: V1Secret): KubeSecret => secret as unknown as KubeSecret;

/** Through the adapter's own client (kube-http.ts), as production sends them. */
describe('classifyApiError against a real API server', () => {
  let h: Host;
  let ns: string;
  beforeAll(async () => {
    h = await host();
    ns = uniqueName('failures');
    await createNamespace(h.core, ns);
    await h.core.createNamespacedSecret({
      namespace: ns,
      body: opaque('present', {}, { token: SECRET_VALUE }),
    });
  });

  it('maps 404 to not-found', async () => {
    expect(await failureOf(readSecret(h.access, ns, 'absent'))).toEqual({
      kind: 'not-found',
      status: 404,
      message: '404 NotFound: secrets "absent" not found',
      retryable: false,
    });
  });

  it('maps 409 AlreadyExists to already-exists and a stale write to a retryable conflict', async () => {
    expect(
      await failureOf(
        createSecret(h.access, ns, asKube(opaque('present', {}, { token: SECRET_VALUE })), {}),
      ),
    ).toMatchObject({
      kind: 'already-exists',
      status: 409,
      retryable: false,
    });
    const stale = opaque('present', {}, { token: SECRET_VALUE });
    stale.metadata = { name: 'present', resourceVersion: '1' };
    expect(
      await failureOf(
        kubeRequest(h.access, {
          method: 'PUT',
          path: `/api/v1/namespaces/${ns}/secrets/present`,
          body: stale,
        }),
      ),
    ).toMatchObject({
      kind: 'conflict',
      status: 409,
      retryable: true,
    });
  });

  it('maps 422 to invalid and names fields, never the rejected values', async () => {
    const body = opaque('present-2', { broken: `${SECRET_VALUE}!` }, { token: SECRET_VALUE });
    const failure = await failureOf(createSecret(h.access, ns, asKube(body), {}));
    expect(failure).toMatchObject({ kind: 'invalid', status: 422, retryable: false });
    expect(failure.message).toContain('metadata.labels');
    expect(failure.message).not.toContain(SECRET_VALUE);
  });

  it('maps 401 to unauthorized without echoing the token', async () => {
    const stranger = accessFromText(tokenKubeConfig(h.plane, SECRET_VALUE).exportConfig(), 'x');
    const failure = await failureOf(listSecrets(stranger, ns, {}));
    expect(failure).toEqual({
      kind: 'unauthorized',
      status: 401,
      message: '401 Unauthorized',
      retryable: false,
    });
  });

  it('maps a refused connection to transient', async () => {
    const nowhere = accessTo({ server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true });
    const failure = await failureOf(listNamespaces(nowhere, {}));
    expect(failure).toEqual({
      kind: 'transient',
      connection: 'refused',
      message: 'connection failed (ECONNREFUSED)',
      retryable: true,
    });
  });

  it('tells a TLS failure from a refused connection', async () => {
    // The real server, but a CA that did not sign its certificate.
    const otherCa = accessTo({ server: h.access.cluster.server });
    const failure = await failureOf(listNamespaces(otherCa, {}));
    expect(failure.connection).toBe('tls');
    expect(diagnoseConnection([failure])?.detail).toContain('TLS verification failed');
  });
});

function accessTo(cluster: Record<string, unknown>) {
  const text = JSON.stringify({
    'current-context': 'x',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user: { token: SECRET_VALUE } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  });
  return { cluster: kubeClusterFromText(text), source: 'test' };
}

describe('diagnoseConnection', () => {
  const refused = classifyApiError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }));
  const dns = classifyApiError(new Error('fetch failed', { cause: { code: 'ENOTFOUND' } }));
  const forbidden = classifyApiError(
    new ApiException(403, 'x', JSON.stringify({ code: 403, reason: 'Forbidden' }), {}),
  );

  it('says once that nothing answered, with what to check', () => {
    expect(diagnoseConnection([refused, refused])).toEqual({
      kind: 'unreachable',
      detail:
        'connection failed (ECONNREFUSED): nothing accepts connections at that address (is the API server up, the port right?)',
    });
    expect(diagnoseConnection([dns])).toEqual({
      kind: 'no-conversation',
      detail: "request failed (ENOTFOUND): the server's host name does not resolve",
    });
  });

  it('names rejected credentials', () => {
    const unauthorized = classifyApiError(new ApiException(401, 'x', '{}', {}));
    expect(diagnoseConnection([unauthorized])).toEqual({
      kind: 'rejected',
      detail: '401 Unauthorized',
    });
  });

  it('stays out of the way when some request got an answer', () => {
    expect(diagnoseConnection([refused, forbidden])).toBeUndefined();
    expect(diagnoseConnection([])).toBeUndefined();
  });
});

describe('classifyApiError on shapes the client produces', () => {
  const status = (code: number, reason: string) =>
    new ApiException(
      code,
      'x',
      JSON.stringify({ kind: 'Status', code, reason, message: `said ${reason}` }),
      { authorization: SECRET_VALUE },
    );

  it('treats 429, 5xx and 408 as transient and retryable', () => {
    for (const code of [408, 429, 500, 503, 504]) {
      expect(classifyApiError(status(code, 'Busy'))).toMatchObject({
        kind: 'transient',
        status: code,
        retryable: true,
      });
    }
  });

  it('maps 403 to forbidden', () => {
    expect(classifyApiError(status(403, 'Forbidden'))).toEqual({
      kind: 'forbidden',
      status: 403,
      message: '403 Forbidden: said Forbidden',
      retryable: false,
    });
  });

  it('never copies headers, bodies or arbitrary messages', () => {
    expect(JSON.stringify(classifyApiError(status(500, 'InternalError')))).not.toContain(
      SECRET_VALUE,
    );
    expect(classifyApiError(new Error(`bearer ${SECRET_VALUE}`))).toEqual({
      kind: 'unknown',
      connection: 'other',
      message: 'unexpected error (Error)',
      retryable: false,
    });
    expect(classifyApiError(new ApiException(502, 'x', '<html>proxy</html>', {}))).toEqual({
      kind: 'transient',
      status: 502,
      message: '502 ServerError',
      retryable: true,
    });
  });

  it('maps socket errors, also when nested as a cause, and aborts', () => {
    expect(classifyApiError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toMatchObject({
      kind: 'transient',
    });
    expect(
      classifyApiError(new Error('fetch failed', { cause: { code: 'ETIMEDOUT' } })),
    ).toMatchObject({ kind: 'transient' });
    expect(classifyApiError(Object.assign(new Error('x'), { name: 'AbortError' }))).toMatchObject({
      kind: 'transient',
    });
    expect(
      classifyApiError(Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' })),
    ).toMatchObject({ kind: 'unknown', retryable: false });
  });

  it('maps a watch ERROR Status object, 410 Gone included', () => {
    expect(
      classifyStatusObject({
        kind: 'Status',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version',
      }),
    ).toMatchObject({
      kind: 'transient',
      status: 410,
    });
  });
});

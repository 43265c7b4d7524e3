// Whatever an exec block holds, the translation either refuses it or emits only ArgoCD's
// own `argocd-k8s-auth` (or awsAuthConfig without a profile), with environment variables
// drawn from the three it knows, and never repeats a secret value in a message.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig } from '../../config/config.js';
import { translateKubeconfig } from '../kubeconfig.js';
import { argoConfigProblems } from '../../test-fixtures/argo-config-check.js';

const SECRET_VALUE = 's3cr3t-value';
const COMMANDS = ['aws-iam-authenticator', 'aws', 'kubelogin', 'gke-gcloud-auth-plugin', 'sh'];
// Groups, so a secret value only ever follows the flag that carries it, or stands alone.
const ARG_GROUPS: readonly (readonly string[])[] = [
  ['token'],
  ['eks'],
  ['get-token'],
  ['-i', 'prod'],
  ['--cluster-id', 'prod'],
  ['--cluster-name', 'prod'],
  ['--cluster-name=prod'],
  ['-r', 'arn:aws:iam::123456789012:role/argocd'],
  ['--role-arn', 'arn:aws:iam::123456789012:role/argocd'],
  ['--region', 'eu-west-1'],
  ['--profile', 'ops'],
  ['--server-id', '6dae42f8-4368-4678-94ff-3960e28e3630'],
  ['--environment', 'AzurePublicCloud'],
  ['--login', 'devicecode'],
  ['--client-id', '80faf920-1908-4b52-b5ef-a8e7bedfc67a'],
  ['--client-secret', SECRET_VALUE],
  [`--client-secret=${SECRET_VALUE}`],
  [SECRET_VALUE],
  ['--use_application_default_credentials'],
  ['--endpoint-url=https://evil.example.com'],
  ['-i'],
];
const ENV_NAMES = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AZURE_CLIENT_SECRET',
  'PATH',
];
const ALLOWED_ENV = new Set(['AWS_REGION', 'AAD_SERVER_APPLICATION_ID', 'AAD_ENVIRONMENT_NAME']);

// A plausible base command line per plugin, then a few groups from the pool on top.
const BASES: readonly (readonly [string, readonly string[]])[] = [
  ['aws-iam-authenticator', ['token', '-i', 'prod']],
  ['aws', ['eks', 'get-token', '--cluster-name', 'prod']],
  ['kubelogin', ['get-token', '--server-id', '6dae42f8-4368-4678-94ff-3960e28e3630']],
  ['gke-gcloud-auth-plugin', []],
  ['sh', ['-c', 'true']],
];

const execArb = fc
  .record({
    base: fc.constantFrom(...BASES),
    extra: fc.array(fc.constantFrom(...ARG_GROUPS), { maxLength: 2 }),
    other: fc.constantFrom(...COMMANDS),
    swap: fc.boolean(),
    // Secret values only where a credential would sit; regions are not secrets (a malformed
    // one is quoted back in the refusal).
    env: fc.uniqueArray(
      fc.oneof(
        fc.record({
          name: fc.constantFrom('AWS_REGION', 'AWS_DEFAULT_REGION'),
          value: fc.constantFrom('eu-west-1', 'not a region'),
        }),
        fc.record({
          name: fc.constantFrom(...ENV_NAMES.filter((name) => !name.includes('REGION'))),
          value: fc.constant(SECRET_VALUE),
        }),
      ),
      { selector: (entry) => entry.name, maxLength: 2 },
    ),
  })
  .map(({ base, extra, other, swap, env }) => ({
    // Sometimes another plugin's command over this one's arguments.
    command: swap ? other : base[0],
    args: [...base[1], ...extra.flat()],
    env,
  }));

// The operator allows the server, cluster and role the generated blocks name, so what is
// refused here is refused for the block itself.
const result = parseConfig({
  providers: ['custom:*=value;exec'],
  execCredentials: true,
  execAllowedServers: ['api.example.com'],
  execEksClusterNames: ['prod'],
  execEksRoleArns: ['arn:aws:iam::123456789012:role/argocd'],
});
if (!result.ok) throw new Error('config');
const [provider] = result.config.providers;
if (provider === undefined) throw new Error('provider');

describe('exec translation safety', () => {
  it('refuses, or emits only argocd-k8s-auth with known variables, and never prints a value', () => {
    let translated = 0;
    let runs = 0;
    fc.assert(
      fc.property(execArb, (exec) => {
        runs++;
        const text = stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: 'https://api.example.com' } }],
          users: [
            {
              name: 'u',
              user: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', ...exec } },
            },
          ],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        });
        const outcome = translateKubeconfig(text, { namespace: 'ns', secret: 's', provider });
        if (!outcome.ok) {
          expect(outcome.refusal.code).toBe('exec-unsupported');
          expect(outcome.refusal.message).not.toContain(SECRET_VALUE);
          return;
        }
        translated++;
        const config = outcome.translation.config;
        expect(argoConfigProblems(outcome.translation.server, config)).toEqual([]);
        expect(JSON.stringify(config)).not.toContain(SECRET_VALUE);
        expect(JSON.stringify(config)).not.toContain('evil');
        if (config.awsAuthConfig !== undefined) {
          for (const key of Object.keys(config.awsAuthConfig))
            expect(['clusterName', 'roleARN']).toContain(key);
          expect(config.awsAuthConfig).not.toHaveProperty('profile');
        } else {
          const form = config.execProviderConfig;
          expect(form?.command).toBe('argocd-k8s-auth');
          expect(['aws', 'azure', 'gcp']).toContain(form?.args[0]);
          expect(form?.args).not.toContain('--profile');
          for (const name of Object.keys(form?.env ?? {})) expect(ALLOWED_ENV.has(name)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
    console.info(
      `exec safety: ${translated} of ${runs} generated exec blocks translated, the rest refused`,
    );
    expect(translated).toBeGreaterThan(0);
  });
});

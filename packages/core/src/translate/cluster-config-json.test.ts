import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../common/base64.js';
import { clusterConfigJson, clusterConfigObject, readConfig } from './cluster-config-json.js';
import type { ArgoClusterConfig } from '../common/types.js';

const text = fc.string({ maxLength: 12 });
const optional = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arbitrary, { nil: undefined });

// Optional fields drawn as absent or as an explicit `undefined`, as a translator may leave them.
const clusterConfigs: fc.Arbitrary<ArgoClusterConfig> = fc.record(
  {
    username: optional(text),
    password: optional(text),
    bearerToken: optional(text),
    tlsClientConfig: fc.record(
      {
        insecure: fc.boolean(),
        serverName: optional(text),
        caData: optional(text),
        certData: optional(text),
        keyData: optional(text),
      },
      { requiredKeys: ['insecure'] },
    ),
    awsAuthConfig: optional(
      fc.record({ clusterName: text, roleARN: optional(text) }, { requiredKeys: ['clusterName'] }),
    ),
    execProviderConfig: optional(
      fc.record(
        {
          command: text,
          args: fc.array(text, { maxLength: 3 }),
          env: optional(fc.dictionary(text, text, { maxKeys: 3 })),
          apiVersion: text,
        },
        { requiredKeys: ['command', 'args', 'apiVersion'] },
      ),
    ),
    proxyUrl: optional(text),
  },
  { requiredKeys: ['tlsClientConfig'] },
) as fc.Arbitrary<ArgoClusterConfig>;

describe('clusterConfigObject', () => {
  it('is what parsing clusterConfigJson gives back', () => {
    fc.assert(
      fc.property(clusterConfigs, (config) => {
        expect(clusterConfigObject(config)).toStrictEqual(JSON.parse(clusterConfigJson(config)));
      }),
    );
  });

  it('reads back from a registration exactly the config it encoded (what the preview diffs)', () => {
    fc.assert(
      fc.property(clusterConfigs, (config) => {
        const encoded = encodeBase64Text(clusterConfigJson(config));
        expect(readConfig(encoded)).toStrictEqual(clusterConfigObject(config));
      }),
    );
  });
});

// Reference mode: a registration that points ArgoCD at the source's own kubeconfig Secret
// instead of copying its credentials. ArgoCD (3.5 or later) runs the kubeconfig-secretreader
// plugin (sigs.k8s.io/cluster-inventory-api) with `provideClusterInfo`; the plugin reads the
// Secret named by `execProviderConfig.config` with ArgoCD's own identity and returns the
// selected user's token or client certificate. The registration holds no credential, so a
// rotation in the source Secret needs no write.
//
// The plugin (v0.1.3) refuses kubeconfig `extensions`, `user.exec`, file paths, username and
// password, and a kubeconfig without a current-context (it never picks "the only pair").

import type {
  CredentialKind,
  ReferenceMode,
  SecretReaderFit,
  Translation,
  TranslationResult,
} from '../common/types.js';
import { where, type YamlMap } from './kubeconfig-structure.js';
import { present } from './kubeconfig-fields.js';

/** The client authentication API version the plugin reads and writes. */
const SECRET_READER_API_VERSION = 'client.authentication.k8s.io/v1';

export interface ReferenceSettings {
  readonly mode: ReferenceMode;
  /** The plugin's path (or name on PATH) inside ArgoCD's application controller. */
  readonly command: string;
}

/** Whether the plugin can read the kubeconfig whose pair (via `context`) was translated. */
export function secretReaderFit(
  root: YamlMap,
  context: string | undefined,
  credential: CredentialKind,
): SecretReaderFit {
  const unfit = (problem: string): SecretReaderFit => ({ ok: false, problem });
  if (present(root['extensions']))
    return unfit('the kubeconfig has extensions, which the plugin refuses');
  if (credential === 'exec') return unfit('its user runs an exec plugin, which the plugin refuses');
  if (credential === 'basic-auth')
    return unfit('its user has a username and password, which the plugin cannot pass on');
  if (context === undefined)
    return unfit(
      'no current-context leads to its cluster and user, and the plugin reads only a named context',
    );
  return { ok: true, context };
}

/**
 * The translation as reference mode has it: with `off`, as it is; when the plugin can read
 * the kubeconfig, the same connection with the plugin in place of the credential; otherwise
 * refused (`on`) or copied with a warning (`on-or-copy`). `source` is the candidate Secret the
 * kubeconfig was read from, never a name a tenant wrote elsewhere.
 */
export function inReferenceMode(
  translation: Translation,
  source: { readonly namespace: string; readonly secret: string; readonly key: string },
  settings: ReferenceSettings,
): TranslationResult {
  if (settings.mode === 'off') return { ok: true, translation };
  const fit = translation.secretReader;
  if (fit === undefined || !fit.ok) {
    const problem = fit?.problem ?? 'it was not checked for the plugin';
    if (settings.mode === 'on')
      return {
        ok: false,
        refusal: {
          code: 'reference-unreadable',
          message: `${where(source)}: reference mode is on, and the kubeconfig-secretreader plugin cannot read this kubeconfig (${problem}); store a kubeconfig with a current-context and a token or inline client certificate, or set reference-mode to on-or-copy to copy its credentials instead`,
        },
      };
    return {
      ok: true,
      translation: {
        ...translation,
        warnings: [
          ...translation.warnings,
          {
            code: 'reference-fallback',
            namespace: source.namespace,
            secret: source.secret,
            message: `${where(source)}: registered with copied credentials, not by reference: the kubeconfig-secretreader plugin cannot read this kubeconfig (${problem})`,
          },
        ],
      },
    };
  }
  const { insecure, serverName, caData } = translation.config.tlsClientConfig;
  const { proxyUrl } = translation.config;
  // No clientCertificate: the registration holds none, so it has no expiry to watch.
  return {
    ok: true,
    translation: {
      server: translation.server,
      warnings: translation.warnings,
      secretReader: fit,
      credential: 'secret-reference',
      config: {
        tlsClientConfig: {
          insecure,
          ...(serverName === undefined ? {} : { serverName }),
          ...(caData === undefined ? {} : { caData }),
        },
        execProviderConfig: {
          command: settings.command,
          args: [],
          apiVersion: SECRET_READER_API_VERSION,
          provideClusterInfo: true,
          config: {
            name: source.secret,
            namespace: source.namespace,
            key: source.key,
            context: fit.context,
          },
        },
        ...(proxyUrl === undefined ? {} : { proxyUrl }),
      },
    },
  };
}

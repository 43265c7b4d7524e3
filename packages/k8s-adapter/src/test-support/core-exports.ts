// What the adapter needs from core, by relative path, for tests run before core's index
// exports it. Test files route '@argocd-cluster-registrar/core' here with vi.mock.
export * from '../../../core/src/label-keys.js';
export * from '../../../core/src/glob.js';
export * from '../../../core/src/providers.js';
import type { ObservedSecret, Provider, TranslationResult } from '../../../core/src/types.js';
type Translator = (secret: ObservedSecret, key: string, provider: Provider) => TranslationResult;
/** Until core's kubeconfig translation lands: gather only passes it along, never calls it. */
export const translateSecretKey: Translator = () => {
  throw new Error('core translateSecretKey is not available yet');
};

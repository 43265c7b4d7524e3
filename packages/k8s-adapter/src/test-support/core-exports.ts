// What the adapter needs from core, by relative path, for tests run before core's index
// exports it. Test files route '@argocd-cluster-registrar/core' here with vi.mock.
export * from '../../../core/src/label-keys.js';
export * from '../../../core/src/glob.js';
export * from '../../../core/src/providers.js';
export * from '../../../core/src/kubeconfig.js';

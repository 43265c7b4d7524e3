// Public entry of @argocd-cluster-registrar/core. Named exports only.
export type * from './types.js';

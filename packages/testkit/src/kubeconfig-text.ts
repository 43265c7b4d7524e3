// The one kubeconfig template of the tests: a provisioner-style file with one cluster, one
// user and one context. Callers give the field lines (already indented values such as
// `certificate-authority-data: ...`), so each helper states only what its tests vary.

export interface KubeconfigTextOptions {
  readonly server: string;
  /** `key: value` lines of the cluster entry after `server`. */
  readonly cluster?: readonly string[];
  /** `key: value` lines (or nested blocks, indented relative to the user entry) of the user. */
  readonly user: readonly string[];
  readonly names?: { readonly cluster?: string; readonly user?: string; readonly context?: string };
}

export function kubeconfigText(options: KubeconfigTextOptions): string {
  const cluster = options.names?.cluster ?? 'child';
  const user = options.names?.user ?? 'admin';
  const context = options.names?.context ?? 'default';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${cluster}`,
    '  cluster:',
    `    server: ${options.server}`,
    ...(options.cluster ?? []).map((line) => `    ${line}`),
    'users:',
    `- name: ${user}`,
    '  user:',
    ...options.user.map((line) => `    ${line}`),
    'contexts:',
    `- name: ${context}`,
    '  context:',
    `    cluster: ${cluster}`,
    `    user: ${user}`,
    `current-context: ${context}`,
    '',
  ].join('\n');
}

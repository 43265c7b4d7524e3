// The targets a run writes into: the ArgoCD namespaces of --targets-file (each here or in
// another cluster, reached through its own kubeconfig by the same connection layer and
// policies as the host's), or the one local target of --target-namespace. Every target
// reads its sources on this host: only this host can prove one gone.

import { readFileSync } from 'node:fs';
import { parseTargetsFile, targetConfig } from '@argocd-cluster-registrar/core';
import type { Config, TargetDefinition } from '@argocd-cluster-registrar/core';
import { loadKubeAccess, readHostIdentity } from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { refuseUnreachable } from './connect.js';
import { UsageError } from './exit-codes.js';
import type { CliOptions } from './flags.js';

export interface RunTarget {
  /** The target's name in the file; `undefined` for the one local target of the shorthand. */
  readonly name: string | undefined;
  /** The configuration it is planned with (its namespace, selector, template). */
  readonly config: Config;
  /** Where its cluster Secrets are read and written: the host, or its own cluster. */
  readonly access: KubeAccess;
  readonly remote: boolean;
}

/** The targets file, read and checked; throws a UsageError naming every problem. */
export function readTargetsFile(path: string): readonly TargetDefinition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(
      `--targets-file ${JSON.stringify(path)}: cannot read it (${code}); point --targets-file at the targets file`,
    );
  }
  const parsed = parseTargetsFile(text);
  if (!parsed.ok)
    throw new UsageError(
      parsed.errors.map((error) => `--targets-file ${JSON.stringify(path)}: ${error}`).join('\n'),
    );
  return parsed.targets;
}

/** Each target with its configuration and connection; the host's access for local ones. */
export function loadTargets(options: CliOptions, config: Config, host: KubeAccess): RunTarget[] {
  const path = options.targetsFile;
  if (path === undefined) return [{ name: undefined, config, access: host, remote: false }];
  const problems: string[] = [];
  const targets: RunTarget[] = [];
  for (const definition of readTargetsFile(path)) {
    let access = host;
    if (definition.kubeconfig !== undefined) {
      try {
        access = loadKubeAccess({
          kubeconfig: definition.kubeconfig,
          ...(definition.context === undefined ? {} : { context: definition.context }),
        });
      } catch (err) {
        problems.push(
          `--targets-file ${JSON.stringify(path)}: target ${JSON.stringify(definition.name)}: ${err instanceof Error ? err.message : String(err)}; fix its kubeconfig (a file of this process, such as a mounted Secret)`,
        );
        continue;
      }
    }
    targets.push({
      name: definition.name,
      config: targetConfig(config, definition),
      access,
      remote: definition.kubeconfig !== undefined,
    });
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  return targets;
}

/** `--host-id`, or what the host cluster says it is; throws a UsageError when it cannot tell. */
export async function hostIdentity(options: CliOptions, host: KubeAccess): Promise<string> {
  if (options.hostId !== undefined) return options.hostId;
  const identity = await readHostIdentity(host);
  if (identity.ok) return identity.id;
  // No connection at all is said as such, as a pass's failed reads are.
  if (identity.failure !== undefined) refuseUnreachable([{ failure: identity.failure }], host);
  throw new UsageError(identity.message);
}

/**
 * Where the Lease lives on this host: the first local target's namespace, else (every target
 * elsewhere) the namespace the registrar runs in.
 */
export function leaseNamespace(targets: readonly RunTarget[]): string | undefined {
  const local = targets.find((target) => !target.remote);
  if (local !== undefined) return local.config.targetNamespace;
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** `target "hub": ` before a message about one of several targets; nothing for the shorthand. */
export function targetPrefix(target: RunTarget): string {
  return target.name === undefined ? '' : `target ${JSON.stringify(target.name)}: `;
}

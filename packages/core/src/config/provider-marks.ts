// Which Secrets a provider reads: those whose name matches its glob, and those carrying what the
// provisioner itself writes on its kubeconfig Secrets, whatever their names. A name is a
// convention a user or a provisioner can break (k3k hashes names of 64+ characters; vcluster
// exports additional kubeconfigs under any name); a provisioner's own labels and controller
// reference are not. Only metadata is read, so the watch (metadata only) and the planner agree.

import { matchGlob } from './glob.js';
import type { Labels, OwnerReference, Provider, ProviderMarks } from '../common/types.js';

/** What is known of a Secret before its data is read. */
export interface SecretMeta {
  readonly name: string;
  readonly labels?: Labels;
  readonly ownerReferences?: readonly OwnerReference[];
}

/** Why a provider reads a Secret: its marks, or (only) its name. */
export type Claim = 'marks' | 'name';

/** Whether the Secret carries every mark the provisioner writes. */
export function carriesMarks(marks: ProviderMarks, secret: SecretMeta): boolean {
  if (marks.labels === undefined && marks.controller === undefined) return false;
  for (const { key, value } of marks.labels ?? []) {
    const found = secret.labels?.[key];
    if (found === undefined || (value !== undefined && found !== value)) return false;
  }
  const controller = marks.controller;
  if (controller === undefined) return true;
  return (secret.ownerReferences ?? []).some(
    (owner) =>
      owner.controller === true &&
      owner.kind === controller.kind &&
      owner.apiVersion.slice(0, owner.apiVersion.indexOf('/')) === controller.group,
  );
}

/** Why `provider` reads the Secret, or `undefined` when it does not (keys aside). */
export function claimOf(provider: Provider, secret: SecretMeta): Claim | undefined {
  if (provider.marks !== undefined && carriesMarks(provider.marks, secret)) return 'marks';
  if (provider.marks?.only === true) return undefined;
  return matchGlob(provider.secretNamePattern, secret.name) ? 'name' : undefined;
}

/** Whether any of the providers reads the Secret (keys aside): what the gatherer keeps. */
export function claimedByAny(providers: readonly Provider[], secret: SecretMeta): boolean {
  return providers.some((provider) => claimOf(provider, secret) !== undefined);
}

/** `labelled app=vcluster and vcluster-name`, `controlled by a k3k.io Cluster`. */
export function describeMarks(marks: ProviderMarks): string {
  const parts: string[] = [];
  const labels = (marks.labels ?? []).map(({ key, value }) =>
    value === undefined ? key : `${key}=${value}`,
  );
  if (labels.length > 0) parts.push(`labelled ${labels.join(' and ')}`);
  if (marks.controller !== undefined)
    parts.push(`controlled by a ${marks.controller.group} ${marks.controller.kind}`);
  return parts.join(' and ');
}

/** For messages: `k3k-*-kubeconfig (or controlled by a k3k.io Cluster)`. */
export function describeLookup(provider: Provider): string {
  const marks = provider.marks;
  if (marks === undefined) return provider.secretNamePattern;
  if (marks.only === true) return `Secrets ${describeMarks(marks)}`;
  return `${provider.secretNamePattern} (or ${describeMarks(marks)})`;
}

// The cluster inventory's own tools (tools/inventory, built by tools/build.sh inventory on the
// first use): the kubeconfig-secretreader plugin consumers run, beside check-profiles and the
// module's CRDs.

import { join } from 'node:path';
import { BUILD_SCRIPT, lastLine, runChecked } from './argocd-tools.js';

let inventoryDir: Promise<string> | undefined;

/** The directory tools/build.sh inventory prints; the first call on a machine builds it. */
export function inventoryToolsDir(): Promise<string> {
  inventoryDir ??= runChecked(BUILD_SCRIPT, ['inventory']).then(lastLine);
  return inventoryDir;
}

/** Path of the built kubeconfig-secretreader plugin. */
export async function secretreaderPath(): Promise<string> {
  return join(await inventoryToolsDir(), 'kubeconfig-secretreader');
}

// The daemon as one file: esbuild bundles the CLI's sources with everything they import into
// dist/bundle/argocd-cluster-registrar.mjs (with a source map, esbuild's metafile, the
// licences and an SPDX document of the npm packages inside), which the container image and
// bin/ run.
//
// Why a bundle: @kubernetes/client-node's entry imports its 719 generated models and 67 API
// clients, which the registrar never uses (it takes only KubeConfig, for kubeconfig loading
// and authentication): loaded as modules they cost ~47 MiB of resident memory on the image's
// Node with --jitless. Marking the files under client-node's dist/gen/ side-effect-free lets
// esbuild leave out every one that nothing uses, without changing client-node's code.
// node-fetch, which client-node's KubeConfig imports only for `Headers`, is Node's own here.
//
//   node packages/cli/bundle.mjs   # writes packages/cli/dist/bundle/ (part of `pnpm build`)
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const packages = join(here, '..');
export const BUNDLE_NAME = 'argocd-cluster-registrar.mjs';
/** client-node's generated models and APIs: what must stay out of the bundle. */
export const CLIENT_NODE_GENERATED = /@kubernetes[/+]client-node.*\/dist\/gen\//;

/** client-node's generated files have no side effects on import: unused ones are dropped. */
const generatedSideEffectFree = {
  name: 'client-node-generated-side-effect-free',
  setup(build) {
    // client-node imports its own files by relative path.
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (!CLIENT_NODE_GENERATED.test(path.split(sep).join('/'))) return undefined;
      return { path, sideEffects: false };
    });
  },
};

/** `Headers` and the error classes client-node takes from node-fetch are Node's own. */
const nodeFetchIsNodes = {
  name: 'node-fetch-is-nodes',
  setup(build) {
    build.onResolve({ filter: /^node-fetch$/ }, () => ({
      path: 'node-fetch',
      namespace: 'node-fetch-shim',
    }));
    build.onLoad({ filter: /.*/, namespace: 'node-fetch-shim' }, () => ({
      contents: [
        'export const Headers = globalThis.Headers;',
        'export class AbortError extends Error {}',
        'export class FetchError extends Error {}',
        'export default globalThis.fetch;',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/** Bundles into `outdir`; returns esbuild's metafile (which modules went in). */
export async function bundle(outdir = join(here, 'dist', 'bundle')) {
  const { version } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
  const result = await build({
    entryPoints: { [BUNDLE_NAME.replace(/\.mjs$/, '')]: join(here, 'src', 'main.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    // The workspace's packages from their sources, as the tests use them.
    alias: {
      ...Object.fromEntries(
        ['core', 'k8s-adapter'].map((pkg) => [
          `@argocd-cluster-registrar/${pkg}`,
          join(packages, pkg, 'src', 'index.ts'),
        ]),
      ),
      '@argocd-cluster-registrar/core/present': join(
        packages,
        'core',
        'src',
        'present',
        'index.ts',
      ),
    },
    // ws's optional native speed-ups, which it loads only if installed.
    external: ['bufferutil', 'utf-8-validate'],
    define: { __REGISTRAR_VERSION__: JSON.stringify(version) },
    // CommonJS dependencies (hpagent, socks) require Node's built-ins.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins: [generatedSideEffectFree, nodeFetchIsNodes],
  });
  const dependencies = bundledPackages(result.metafile);
  writeFileSync(join(outdir, 'THIRD-PARTY-LICENSES.txt'), licences(dependencies));
  writeFileSync(
    join(outdir, BUNDLE_NAME.replace(/\.mjs$/, '.spdx.json')),
    `${JSON.stringify(spdxDocument(version, dependencies), null, 2)}\n`,
  );
  return result.metafile;
}

/** Every npm package whose code went into the bundle: its directory and package.json fields. */
function bundledPackages(metafile) {
  const roots = new Set();
  for (const output of Object.values(metafile.outputs))
    for (const [path, input] of Object.entries(output.inputs)) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path);
      if (match?.[1] !== undefined && input.bytesInOutput > 0) roots.add(match[1]);
    }
  return [...roots].sort().map((root) => {
    const dir = resolve(process.cwd(), root);
    const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return { dir, name, version, license };
  });
}

/** The licence file of every bundled package (MIT, ISC, Apache-2.0 ask for it). */
function licences(packages) {
  const sections = [];
  for (const { dir, name, version, license } of packages) {
    const file = readdirSync(dir).find((entry) => /^(licen[cs]e|copying)/i.test(entry));
    const text =
      file === undefined
        ? `(no licence file; package.json says ${license})`
        : readFileSync(join(dir, file), 'utf8').trim();
    sections.push(`${name}@${version} (${license})\n\n${text}\n`);
  }
  return sections.join(`\n${'-'.repeat(72)}\n\n`);
}

/**
 * An SPDX 2.3 document of the bundled packages. The bundle leaves no node_modules in the image
 * for an SBOM scanner to find; BuildKit's Syft scanner (the release's `sbom: true`) adds the
 * packages of SBOM documents it finds in the image (`*.spdx.json`) to the image's SBOM, so
 * this file puts them there. Its bytes depend only on the bundle's inputs (no clock), so an
 * unchanged build leaves the image unchanged.
 */
function spdxDocument(version, packages) {
  const purl = (name, packageVersion) =>
    `pkg:npm/${name.replace(/^@/, '%40')}@${encodeURIComponent(packageVersion)}`;
  const spdxId = (name, packageVersion) =>
    `SPDXRef-Package-npm-${`${name}-${packageVersion}`.replace(/[^A-Za-z0-9.-]/g, '-')}`;
  // An SPDX licence expression as npm's `license` field holds it; anything else is no assertion.
  const licence = (value) =>
    typeof value === 'string' && /^[A-Za-z0-9.+\-() ]+$/.test(value) ? value : 'NOASSERTION';
  const subject = 'SPDXRef-Package-argocd-cluster-registrar';
  const contained = packages.map(({ name, version: packageVersion, license }) => ({
    SPDXID: spdxId(name, packageVersion),
    name,
    versionInfo: packageVersion,
    downloadLocation: 'NOASSERTION',
    filesAnalyzed: false,
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: licence(license),
    copyrightText: 'NOASSERTION',
    externalRefs: [
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: purl(name, packageVersion),
      },
    ],
  }));
  const inputs = contained.map((pkg) => `${pkg.name}@${pkg.versionInfo}`).join(',');
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `argocd-cluster-registrar-${version}-bundle`,
    documentNamespace: `https://github.com/argocd-cluster-registrar/argocd-cluster-registrar/spdx/${version}/${createHash('sha256').update(inputs).digest('hex')}`,
    creationInfo: {
      creators: ['Tool: argocd-cluster-registrar-bundle'],
      created: new Date(Number(process.env.SOURCE_DATE_EPOCH ?? 0) * 1000)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    },
    documentDescribes: [subject],
    packages: [
      {
        SPDXID: subject,
        name: 'argocd-cluster-registrar',
        versionInfo: version,
        downloadLocation: 'https://github.com/argocd-cluster-registrar/argocd-cluster-registrar',
        filesAnalyzed: false,
        licenseConcluded: 'NOASSERTION',
        licenseDeclared: 'Apache-2.0',
        copyrightText: 'NOASSERTION',
      },
      ...contained,
    ],
    relationships: [
      {
        spdxElementId: 'SPDXRef-DOCUMENT',
        relationshipType: 'DESCRIBES',
        relatedSpdxElement: subject,
      },
      ...contained.map((pkg) => ({
        spdxElementId: subject,
        relationshipType: 'CONTAINS',
        relatedSpdxElement: pkg.SPDXID,
      })),
    ],
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outdir = join(here, 'dist', 'bundle');
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(await bundle(outdir)));
}

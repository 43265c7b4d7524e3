// The shipped daemon is one esbuild bundle (bundle.mjs). @kubernetes/client-node loads and
// authenticates the host connection, but its generated models and API clients (719 + 67
// modules, ~47 MiB of resident memory on the image's runtime) must stay out of it: this reads
// the bundle's metafile and fails if any of them went in.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

interface Metafile {
  readonly outputs: Readonly<
    Record<string, { readonly inputs: Readonly<Record<string, { bytesInOutput: number }>> }>
  >;
}
interface BundleModule {
  bundle(outdir: string): Promise<Metafile>;
  readonly BUNDLE_NAME: string;
}

const packageDir = new URL('..', import.meta.url);
let bundled: string[] = [];
let outdir = '';
let name = '';
beforeAll(async () => {
  // A variable specifier: bundle.mjs is plain JavaScript, run by `pnpm build` as it is.
  const specifier = new URL('bundle.mjs', packageDir).href;
  const module = (await import(specifier)) as BundleModule;
  outdir = mkdtempSync(join(tmpdir(), 'acr-bundle-'));
  name = module.BUNDLE_NAME;
  const metafile = await module.bundle(outdir);
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(name))?.[1];
  bundled = Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}, 60_000);

describe('the daemon bundle', () => {
  it("holds client-node's KubeConfig and none of its generated models or API clients", () => {
    expect(bundled.filter((path) => /client-node\/dist\/config\.js$/.test(path))).toHaveLength(1);
    const generated = bundled.filter((path) =>
      /@kubernetes\/client-node\/dist\/gen\/(models|apis)\//.test(path),
    );
    expect(generated).toEqual([]);
  });

  it('is one file with its source map', () => {
    const text = readFileSync(join(outdir, name), 'utf8');
    expect(text).toContain(`//# sourceMappingURL=${name}.map`);
    const map = JSON.parse(readFileSync(join(outdir, `${name}.map`), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources.some((source) => source.endsWith('packages/cli/src/main.ts'))).toBe(true);
  });

  it('ships an SPDX document of the npm packages inside it, which the image SBOM scanner reads', () => {
    // A bundle leaves no node_modules for a scanner to find; BuildKit's Syft scanner reads
    // SBOM documents it finds in the image (`*.spdx.json`) instead.
    interface SpdxPackage {
      readonly SPDXID: string;
      readonly name: string;
      readonly versionInfo?: string;
      readonly externalRefs?: readonly { referenceType: string; referenceLocator: string }[];
    }
    const document = JSON.parse(
      readFileSync(join(outdir, name.replace(/\.mjs$/, '.spdx.json')), 'utf8'),
    ) as {
      spdxVersion: string;
      documentDescribes: string[];
      packages: SpdxPackage[];
      relationships: {
        spdxElementId: string;
        relationshipType: string;
        relatedSpdxElement: string;
      }[];
    };
    expect(document.spdxVersion).toBe('SPDX-2.3');
    const purls = document.packages.flatMap((pkg) =>
      (pkg.externalRefs ?? [])
        .filter((ref) => ref.referenceType === 'purl')
        .map((ref) => ref.referenceLocator),
    );
    // Every package whose code went in, by the path esbuild read it from, and nothing else.
    const roots = new Set(
      bundled.flatMap((path) => {
        const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
        return match?.[1] === undefined ? [] : [match[1]];
      }),
    );
    const named = new Set(
      purls.map((purl) => decodeURIComponent(/^pkg:npm\/(.+)@[^@]+$/.exec(purl)?.[1] ?? purl)),
    );
    expect(named).toEqual(roots);
    const clientNode = JSON.parse(
      readFileSync(
        new URL('../k8s-adapter/node_modules/@kubernetes/client-node/package.json', packageDir),
        'utf8',
      ),
    ) as { version: string };
    expect(purls).toContain(`pkg:npm/%40kubernetes/client-node@${clientNode.version}`);
    // The registrar is the document's subject and contains each of them.
    const [subject] = document.documentDescribes;
    expect(document.packages.find((pkg) => pkg.SPDXID === subject)?.name).toBe(
      'argocd-cluster-registrar',
    );
    expect(
      document.relationships.filter(
        (r) => r.spdxElementId === subject && r.relationshipType === 'CONTAINS',
      ),
    ).toHaveLength(roots.size);
  });

  it('pins @kubernetes/client-node exactly in the adapter, whose file layout the bundle relies on', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../k8s-adapter/package.json', packageDir), 'utf8'),
    ) as { dependencies?: Record<string, string> };
    expect(manifest.dependencies?.['@kubernetes/client-node']).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

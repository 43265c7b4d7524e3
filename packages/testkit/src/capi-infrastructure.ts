// The tests' own infrastructure provider, as CAPI's own tests have one: CRDs for an
// infrastructure cluster kind and a machine template kind in a group of the tests' own,
// following the CAPI contract (the contract label names the version that implements v1beta2).
// No controller serves them: a test writes what an infrastructure provider would (the
// control plane endpoint, and `status.initialization.provisioned` once "provisioned").
// Machines are not part of the flow the tests need (KCP writes the kubeconfig before any
// Machine exists), so there is no infrastructure machine kind: KCP's attempt to create one
// fails, after the kubeconfig is written.

export const TEST_INFRASTRUCTURE_GROUP = 'infrastructure.acr.test';
export const TEST_INFRASTRUCTURE_VERSION = 'v1alpha1';
export const TEST_CLUSTER_KIND = 'TestCluster';
export const TEST_MACHINE_TEMPLATE_KIND = 'TestMachineTemplate';

function crd(kind: string, plural: string, status: boolean) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural}.${TEST_INFRASTRUCTURE_GROUP}`,
      labels: { 'cluster.x-k8s.io/v1beta2': TEST_INFRASTRUCTURE_VERSION },
    },
    spec: {
      group: TEST_INFRASTRUCTURE_GROUP,
      scope: 'Namespaced',
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
      },
      versions: [
        {
          name: TEST_INFRASTRUCTURE_VERSION,
          served: true,
          storage: true,
          ...(status ? { subresources: { status: {} } } : {}),
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      ],
    },
  };
}

export const TEST_INFRASTRUCTURE_CRDS = [
  crd(TEST_CLUSTER_KIND, 'testclusters', true),
  crd(TEST_MACHINE_TEMPLATE_KIND, 'testmachinetemplates', false),
];

// Kamaji's TenantControlPlane CRD (kamaji.clastix.io/v1alpha1), for tests that read its
// status: taken from Kamaji's charts/kamaji/crds/kamaji.clastix.io_tenantcontrolplanes.yaml at
// 26.8.2-edge (ddbabd8) and trimmed to a valid schema of what is read. Kept as Kamaji writes
// them: the names, the printer columns of the versions, the status subresource and
// `status.kubernetesResources.version` (its `status` enum, `Sleeping` included); `spec` keeps
// its two required fields, their contents left open. Left out: the other 10,000 lines of
// schema, the scale subresource and the conversion webhook (one version needs none).

import type { ControlPlane } from './control-plane.js';
import { applyCrds } from './crds.js';

export const KAMAJI_TCP_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'tenantcontrolplanes.kamaji.clastix.io',
  },
  spec: {
    group: 'kamaji.clastix.io',
    names: {
      categories: ['kamaji'],
      kind: 'TenantControlPlane',
      listKind: 'TenantControlPlaneList',
      plural: 'tenantcontrolplanes',
      shortNames: ['tcp'],
      singular: 'tenantcontrolplane',
    },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: {
          status: {},
        },
        additionalPrinterColumns: [
          {
            description: 'Kubernetes version',
            jsonPath: '.spec.kubernetes.version',
            name: 'Version',
            type: 'string',
          },
          {
            description: 'The actual installed Kubernetes version from status',
            jsonPath: '.status.kubernetesResources.version.version',
            name: 'Installed Version',
            type: 'string',
          },
          {
            description: 'Status',
            jsonPath: '.status.kubernetesResources.version.status',
            name: 'Status',
            type: 'string',
          },
        ],
        schema: {
          openAPIV3Schema: {
            description: 'TenantControlPlane is the Schema for the tenantcontrolplanes API.',
            type: 'object',
            properties: {
              apiVersion: {
                type: 'string',
              },
              kind: {
                type: 'string',
              },
              metadata: {
                type: 'object',
              },
              spec: {
                type: 'object',
                required: ['controlPlane', 'kubernetes'],
                properties: {
                  controlPlane: {
                    type: 'object',
                    'x-kubernetes-preserve-unknown-fields': true,
                  },
                  kubernetes: {
                    type: 'object',
                    'x-kubernetes-preserve-unknown-fields': true,
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  kubernetesResources: {
                    type: 'object',
                    properties: {
                      version: {
                        description:
                          'KubernetesVersion contains the information regarding the running Kubernetes version, and its upgrade status.',
                        properties: {
                          status: {
                            default: 'Provisioning',
                            description:
                              'Status returns the current status of the Kubernetes version, such as its provisioning state, or completed upgrade.',
                            enum: [
                              'Unknown',
                              'Provisioning',
                              'CertificateAuthorityRotating',
                              'Upgrading',
                              'Migrating',
                              'Ready',
                              'NotReady',
                              'Sleeping',
                              'WriteLimited',
                            ],
                            type: 'string',
                          },
                          version: {
                            description:
                              'Version is the running Kubernetes version of the Tenant Control Plane.',
                            type: 'string',
                          },
                        },
                        type: 'object',
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** Installs the TenantControlPlane CRD and waits until it is Established. */
export async function installKamajiCrd(plane: Pick<ControlPlane, 'kubeconfigPath'>): Promise<void> {
  await applyCrds(plane, "Kamaji's TenantControlPlane CRD", [KAMAJI_TCP_CRD.metadata.name], {
    input: JSON.stringify(KAMAJI_TCP_CRD),
  });
}

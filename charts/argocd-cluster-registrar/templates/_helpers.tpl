{{/* Names ------------------------------------------------------------------------------ */}}

{{- define "acr.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "acr.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "acr.serviceAccountName" -}}
{{- default (include "acr.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "acr.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Labels and annotations ----------------------------------------------------------------- */}}

{{- define "acr.selectorLabels" -}}
app.kubernetes.io/name: {{ include "acr.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The chart's labels win over commonLabels: the selector must stay intact. */}}
{{- define "acr.labels" -}}
{{- $own := dict
  "helm.sh/chart" (printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_")
  "app.kubernetes.io/name" (include "acr.name" .)
  "app.kubernetes.io/instance" .Release.Name
  "app.kubernetes.io/version" .Chart.AppVersion
  "app.kubernetes.io/managed-by" .Release.Service
  "app.kubernetes.io/part-of" "argocd-cluster-registrar" -}}
{{- toYaml (merge (dict) $own (.Values.commonLabels | default (dict))) -}}
{{- end -}}

{{/* Metadata for every object: labels, plus commonAnnotations and any extra annotations. */}}
{{- define "acr.metadata" -}}
labels:
  {{- toYaml (merge (dict) (include "acr.labels" .root | fromYaml) (.labels | default (dict))) | nindent 2 }}
{{- $annotations := merge (dict) (.annotations | default (dict)) (.root.Values.commonAnnotations | default (dict)) }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The metrics Service; the ServiceMonitor's scrapes carry its name as their job label. */}}
{{- define "acr.metricsServiceName" -}}
{{- printf "%s-metrics" (include "acr.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* PromQL label matchers for this release's series, for the alerts and the dashboard. */}}
{{- define "acr.metricsSelector" -}}
{{- default (printf "job=%q,namespace=%q" (include "acr.metricsServiceName" .) .Release.Namespace) .Values.metrics.prometheusRule.selector -}}
{{- end -}}

{{/* Registrar label keys, as the daemon computes them from the prefix. */}}
{{- define "acr.managedByLabel" -}}
{{- printf "%smanaged-by" .Values.labelPrefix -}}
{{- end -}}
{{- define "acr.hostIdLabel" -}}
{{- printf "%shost-id" .Values.labelPrefix -}}
{{- end -}}
{{- define "acr.clusterLabel" -}}
{{- printf "%scluster" .Values.labelPrefix -}}
{{- end -}}

{{/* The usernames admissionPolicy allows, as a JSON list: allowedUsers and allowedServiceAccounts. */}}
{{- define "acr.policyUsers" -}}
{{- $users := .Values.admissionPolicy.allowedUsers | default list -}}
{{- range .Values.admissionPolicy.allowedServiceAccounts -}}
{{- $users = append $users (printf "system:serviceaccount:%s:%s" .namespace .name) -}}
{{- end -}}
{{- toJson $users -}}
{{- end -}}

{{/*
The leader-election Lease name, computed exactly as the daemon does (k8s-adapter leaseName):
the prefix without its trailing "/", "-", managedBy; lower-cased, runs of other characters
as "-", no "--", no leading or trailing punctuation.
*/}}
{{- define "acr.leaseName" -}}
{{- $clean := printf "%s-%s" (lower (regexReplaceAll "/+$" .Values.labelPrefix "")) (lower .Values.managedBy) -}}
{{- $clean = regexReplaceAll "[^a-z0-9.-]+" $clean "-" -}}
{{- $clean = regexReplaceAll "-{2,}" $clean "-" -}}
{{- $clean = trunc 253 $clean -}}
{{- regexReplaceAll "^[^a-z0-9]+|[^a-z0-9]+$" $clean "" -}}
{{- end -}}

{{/* Port of a listen address rendered from a port number: ":8080". */}}
{{- define "acr.listen" -}}
{{- printf ":%d" (int .) -}}
{{- end -}}

{{/*
Container arguments: one CLI flag per value, `--flag=value` so each is a single argument.
Settings left at their empty value render no flag, so the CLI's own default applies.
*/}}
{{- define "acr.args" -}}
{{- $v := .Values -}}
{{- if $v.targets }}
- {{ printf "--targets-file=%s/targets.json" (include "acr.targetsDir" .) | quote }}
{{- else }}
- {{ printf "--target-namespace=%s" $v.targetNamespace | quote }}
{{- end }}
{{- with $v.hostId }}
- {{ printf "--host-id=%s" . | quote }}
{{- end }}
- {{ printf "--label-prefix=%s" $v.labelPrefix | quote }}
- {{ printf "--managed-by=%s" $v.managedBy | quote }}
{{- range $v.providers }}
- {{ printf "--provider=%s" . | quote }}
{{- end }}
{{- with $v.secretNamePattern }}
- {{ printf "--secret-name-pattern=%s" . | quote }}
{{- end }}
{{- with $v.secretKey }}
- {{ printf "--secret-key=%s" . | quote }}
{{- end }}
- {{ printf "--exec-credentials=%t" $v.execCredentials | quote }}
{{- range $v.execAllowedServers }}
- {{ printf "--exec-allowed-servers=%s" . | quote }}
{{- end }}
{{- range $v.execAksServerIds }}
- {{ printf "--exec-aks-server-ids=%s" . | quote }}
{{- end }}
{{- range $v.execEksClusterNames }}
- {{ printf "--exec-eks-cluster-names=%s" . | quote }}
{{- end }}
{{- range $v.execEksRoleArns }}
- {{ printf "--exec-eks-role-arns=%s" . | quote }}
{{- end }}
- {{ printf "--drain-on-terminate=%t" $v.drainOnTerminate | quote }}
- {{ printf "--capi-clusters=%t" $v.capiClusters | quote }}
- {{ printf "--capi-cluster-names=%s" $v.capiClusterNames | quote }}
- {{ printf "--capi-cluster-name-label=%t" $v.capiClusterNameLabel | quote }}
- {{ printf "--probe-children=%t" $v.probeChildren | quote }}
- {{ printf "--probe-failures=%d" (int $v.probeFailures) | quote }}
- {{ printf "--probe-interval=%s" (toString $v.probeInterval) | quote }}
- {{ printf "--kamaji-sleep=%t" $v.kamajiSleep | quote }}
- {{ printf "--vcluster-sleep=%t" $v.vclusterSleep | quote }}
- {{ printf "--reference-mode=%s" $v.referenceMode | quote }}
- {{ printf "--secretreader-path=%s" $v.secretreaderPath | quote }}
- {{ printf "--cluster-profiles=%t" $v.clusterProfiles.enabled | quote }}
{{- with $v.clusterProfiles.namespace }}
- {{ printf "--cluster-profile-namespace=%s" . | quote }}
{{- end }}
- {{ printf "--cluster-manager=%s" $v.clusterProfiles.clusterManager | quote }}
- {{ printf "--interval=%s" (toString $v.interval) | quote }}
- {{ printf "--resync-period=%s" (toString $v.resyncPeriod) | quote }}
- {{ printf "--demoted-ttl=%s" (toString $v.demotedTTL) | quote }}
- {{ printf "--credential-refresh-window=%s" (toString $v.credentialRefreshWindow) | quote }}
- {{ printf "--dry-run=%t" $v.dryRun | quote }}
- {{ printf "--debug=%t" $v.debug | quote }}
- {{ printf "--log-format=%s" $v.logFormat | quote }}
- {{ printf "--leader-elect=%t" $v.leaderElection.enabled | quote }}
- {{ printf "--health-addr=%s" (ternary (include "acr.listen" $v.probes.port) "" $v.probes.enabled) | quote }}
- {{ printf "--metrics-addr=%s" (ternary (include "acr.listen" $v.metrics.port) "" $v.metrics.enabled) | quote }}
{{- end -}}

{{/*
What values.schema.json cannot say well, each failing the render with what to change: the 0.1.x
values (with what replaced them), the settings' forms (acr.validateSettings, generated from the
CLI's own checks into _settings-validation.tpl: helm prints a schema failure with the raw
pattern), the image digest's form, and combinations of values.
*/}}
{{- define "acr.validate" -}}
{{- include "acr.validateRemoved" . -}}
{{- include "acr.validateSettings" . -}}
{{- if not (regexMatch "^(sha256:[a-f0-9]{64})?$" .Values.image.digest) -}}
{{- fail (printf "values: image.digest %q is not an image digest: write sha256: followed by 64 lower-case hex digits (e.g. image.digest: sha256:%s), or leave it empty to use image.tag" .Values.image.digest (repeat 64 "0")) -}}
{{- end -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) -}}
{{- fail (printf "values: replicaCount is %d but leaderElection.enabled is false: several replicas would all write the same Secrets; set leaderElection.enabled: true (only the leader writes) or replicaCount: 1" (int .Values.replicaCount)) -}}
{{- end -}}
{{- if and .Values.metrics.service.enabled (not .Values.metrics.enabled) -}}
{{- fail "values: metrics.service.enabled is true but metrics.enabled is false: the Service would point at a closed port; enable metrics or disable the Service" -}}
{{- end -}}
{{- range $part := list "serviceMonitor" "prometheusRule" "dashboard" -}}
{{- if and (get $.Values.metrics $part).enabled (not $.Values.metrics.enabled) -}}
{{- fail (printf "values: metrics.%s.enabled is true but metrics.enabled is false: it reads the registrar's /metrics; enable metrics or disable it" $part) -}}
{{- end -}}
{{- end -}}
{{- $policy := .Values.admissionPolicy -}}
{{- if and $policy.enabled (not $policy.allowedUsers) (not $policy.allowedGroups) (not $policy.allowedServiceAccounts) -}}
{{- fail "values: admissionPolicy.enabled is true but allowedUsers, allowedGroups and allowedServiceAccounts are all empty: nobody could ever mark a namespace or Cluster for registration; list who may (e.g. allowedGroups: [system:masters]), or set admissionPolicy.enabled: false" -}}
{{- end -}}
{{- if and (not .Values.serviceAccount.create) (not .Values.serviceAccount.name) -}}
{{- fail "values: serviceAccount.create is false, so serviceAccount.name must name the existing ServiceAccount to run as and bind the roles to" -}}
{{- end -}}
{{- $consumers := .Values.consumerAccess -}}
{{- if and $consumers.serviceAccounts (not $consumers.namespaces) -}}
{{- fail "values: consumerAccess.serviceAccounts is set but consumerAccess.namespaces is empty: list the source namespaces whose kubeconfig Secrets they may read, or remove the ServiceAccounts" -}}
{{- end -}}
{{- if and $consumers.namespaces (not $consumers.serviceAccounts) -}}
{{- fail "values: consumerAccess.namespaces is set but consumerAccess.serviceAccounts is empty: list the consumer ServiceAccounts ({name, namespace}) that may read their kubeconfig Secrets, or remove the namespaces" -}}
{{- end -}}
{{- /*
The Role, its binding and the Lease live in targetNamespace: when it is missing, the install
would fail late (the Role is refused after the cluster-wide objects exist) and leave a failed
release behind. Checked before anything is sent. lookup returns nothing without a cluster
(helm template, lint, client dry run), so the check runs only where kube-system is visible,
i.e. against a real cluster.
*/ -}}
{{- if and (lookup "v1" "Namespace" "" "kube-system") (not (lookup "v1" "Namespace" "" .Values.targetNamespace)) -}}
{{- fail (printf "values: targetNamespace %q does not exist in this cluster. It must be ArgoCD's namespace (where ArgoCD reads cluster Secrets); install ArgoCD first, create it (kubectl create namespace %s), or set targetNamespace to the namespace ArgoCD runs in (e.g. --set targetNamespace=argocd). Nothing was installed." .Values.targetNamespace .Values.targetNamespace) -}}
{{- end -}}
{{- end -}}

{{/* The 0.1.x values, refused in every mode with what replaced them. */}}
{{- define "acr.validateRemoved" -}}
{{- $removed := dict
  "clusters" (printf "clusters are now found through namespace labels: label each namespace with %smanaged-by and %scluster" .Values.labelPrefix .Values.labelPrefix)
  "autoDiscovery" "discovery through namespace labels is always on"
  "service" "the metrics endpoint has its own optional Service, metrics.service" -}}
{{- range $key := list "clusters" "autoDiscovery" "service" -}}
{{- if hasKey $.Values $key -}}
{{- fail (printf "values: %s is a 0.1.x value, removed in 0.2.0: delete it (%s). How to migrate: see \"Migrating from 0.1.x\" in the chart's README (helm show readme <chart>)" $key (get $removed $key)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Hub mode's checks: a hub without spokes installs nothing (a mistake, not a choice), two
entries of one name would render one identity twice, and the ArgoCD namespace must exist
(checked only against a real cluster, as targetNamespace is).
*/}}
{{- define "acr.validateHub" -}}
{{- include "acr.validateRemoved" . -}}
{{- if not .Values.hub.spokes -}}
{{- fail "values: hub.enabled is true but hub.spokes is empty: list one entry per spoke (the cluster a registrar runs in), e.g. hub.spokes: [{name: host-a}]; each gets its own identity in the ArgoCD namespace" -}}
{{- end -}}
{{- $seen := dict -}}
{{- range .Values.hub.spokes -}}
{{- if hasKey $seen .name -}}
{{- fail (printf "values: hub.spokes lists %q twice: give each spoke its own name (its identity and token are named after it)" .name) -}}
{{- end -}}
{{- $_ := set $seen .name true -}}
{{- end -}}
{{- $argocd := default .Release.Namespace .Values.hub.argocdNamespace -}}
{{- if and (lookup "v1" "Namespace" "" "kube-system") (not (lookup "v1" "Namespace" "" $argocd)) -}}
{{- fail (printf "values: hub.argocdNamespace %q does not exist in this cluster. It must be the namespace ArgoCD runs in (where it reads cluster Secrets); install ArgoCD first or set hub.argocdNamespace. Nothing was installed." $argocd) -}}
{{- end -}}
{{- end -}}

{{/* Where the targets file and the targets' kubeconfigs are mounted. */}}
{{- define "acr.targetsDir" -}}/etc/argocd-cluster-registrar/targets{{- end -}}

{{/*
The targets file the chart renders from the targets value: a target with a kubeconfigSecret
points at its read-only mount.
*/}}
{{- define "acr.targetsFile" -}}
{{- $dir := include "acr.targetsDir" . -}}
{{- $targets := list -}}
{{- range .Values.targets -}}
{{- $target := . -}}
{{- $t := dict "name" .name "namespace" .namespace -}}
{{- with .kubeconfigSecret -}}
{{- $_ := set $t "kubeconfig" (printf "%s/kubeconfigs/%s/%s" $dir $target.name .key) -}}
{{- end -}}
{{- with .context }}{{- $_ := set $t "context" . -}}{{- end -}}
{{- with .selector }}{{- $_ := set $t "selector" . -}}{{- end -}}
{{- with .nameTemplate }}{{- $_ := set $t "nameTemplate" . -}}{{- end -}}
{{- $targets = append $targets $t -}}
{{- end -}}
{{- dict "targets" $targets | toJson -}}
{{- end -}}

{{/*
The namespaces of this cluster the registrar writes registrations into: targetNamespace, or
the local targets' namespaces (those without a kubeconfigSecret).
*/}}
{{- define "acr.localNamespaces" -}}
{{- if .Values.targets -}}
{{- $names := list -}}
{{- range .Values.targets -}}{{- if not .kubeconfigSecret -}}{{- $names = append $names .namespace -}}{{- end -}}{{- end -}}
{{- $names | uniq | toJson -}}
{{- else -}}
{{- list .Values.targetNamespace | toJson -}}
{{- end -}}
{{- end -}}

{{/* Where the Lease lives: the first local namespace, else the release's own namespace. */}}
{{- define "acr.leaseNamespace" -}}
{{- $local := include "acr.localNamespaces" . | fromJsonArray -}}
{{- if $local }}{{ first $local }}{{ else }}{{ .Release.Namespace }}{{ end -}}
{{- end -}}

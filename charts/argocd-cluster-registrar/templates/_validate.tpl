{{/*
The forms of single values, checked here rather than by values.schema.json: Helm's schema
validator can only print the raw pattern ("'abc' does not match pattern '^(0|((\\d+…'"), while
these messages name the value, say what it must look like and give an example. The schema
still checks every key and type. Called first by acr.validate.
*/}}

{{- define "acr.validateForms" -}}
{{- $removed := dict
  "clusters" (printf "clusters are now found through namespace labels: label each namespace with %smanaged-by and %scluster" .Values.labelPrefix .Values.labelPrefix)
  "autoDiscovery" "discovery through namespace labels is always on"
  "service" "the metrics endpoint has its own optional Service, metrics.service" -}}
{{- range $key := list "clusters" "autoDiscovery" "service" -}}
{{- if hasKey $.Values $key -}}
{{- fail (printf "values: %s is a 0.1.x value, removed in 0.2.0: delete it (%s). How to migrate: see \"Migrating from 0.1.x\" in the chart's README (helm show readme <chart>)" $key (get $removed $key)) -}}
{{- end -}}
{{- end -}}

{{- $v := .Values -}}
{{- if not (and (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $v.targetNamespace) (le (len $v.targetNamespace) 63)) -}}
{{- fail (printf "values: targetNamespace %q is not a namespace name: use lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (e.g. targetNamespace: argocd)" $v.targetNamespace) -}}
{{- end -}}
{{- if not (and (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/$" $v.labelPrefix) (le (len $v.labelPrefix) 254)) -}}
{{- fail (printf "values: labelPrefix %q is not a label prefix: write a DNS subdomain (lower-case letters, digits, '-' and '.') followed by '/' (e.g. labelPrefix: argocd-cluster-registrar/ or registrar.example.com/)" $v.labelPrefix) -}}
{{- end -}}
{{- if not (and (regexMatch "^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$" $v.managedBy) (le (len $v.managedBy) 63)) -}}
{{- fail (printf "values: managedBy %q is not a label value: use letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters (e.g. managedBy: cluster-registrar)" $v.managedBy) -}}
{{- end -}}
{{- range $i, $p := $v.providers -}}
{{- if not (regexMatch "^(k3k|vcluster|kamaji|capi|capa-eks|capz-aks|gke|custom:[^=]+=[^,;]+(,[^,;]+)*(;exec)?)$" $p) -}}
{{- fail (printf "values: providers[%d] is %q, which is not a provider: use k3k, vcluster, kamaji, capi, capa-eks, capz-aks, gke, or custom:<secret-name-glob>=<key>[,<key>...][;exec] (e.g. providers: [vcluster] or providers: [\"custom:*-kubeconfig=kubeconfig\"])" $i $p) -}}
{{- end -}}
{{- end -}}
{{- if not (regexMatch "^([-._a-zA-Z0-9]+)?$" $v.secretKey) -}}
{{- fail (printf "values: secretKey %q is not a Secret data key: use letters, digits, '-', '_' and '.' (e.g. secretKey: kubeconfig.yaml), or leave it empty" $v.secretKey) -}}
{{- end -}}
{{- $examples := dict "interval" "60s" "demotedTTL" "168h" "credentialRefreshWindow" "24h" "resyncPeriod" "10m" -}}
{{- range $key := list "interval" "demotedTTL" "credentialRefreshWindow" "resyncPeriod" -}}
{{- $d := index $v $key -}}
{{- if not (regexMatch "^(0|((\\d+(\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h))+)$" $d) -}}
{{- fail (printf "values: %s %q is not a duration: write a number followed by a unit (ns, us, ms, s, m, h), units may be combined%s (e.g. %s: %s, or 1m30s)" $key $d (ternary "" ", or 0" (eq $key "interval")) $key (get $examples $key)) -}}
{{- end -}}
{{- end -}}
{{- if lt (float64 (include "acr.durationSeconds" $v.interval)) 1.0 -}}
{{- fail (printf "values: interval %q is shorter than the minimum of 1s: a full pass re-plans every registration (e.g. interval: 60s)" $v.interval) -}}
{{- end -}}
{{- if lt (float64 (include "acr.durationSeconds" $v.resyncPeriod)) 60.0 -}}
{{- fail (printf "values: resyncPeriod %q is shorter than the minimum of 1m: each re-list reads every Secret's metadata (e.g. resyncPeriod: 10m)" $v.resyncPeriod) -}}
{{- end -}}
{{- if not (regexMatch "^(sha256:[a-f0-9]{64})?$" $v.image.digest) -}}
{{- fail (printf "values: image.digest %q is not an image digest: write sha256: followed by 64 lower-case hex digits (e.g. image.digest: sha256:%s), or leave it empty to use image.tag" $v.image.digest (repeat 64 "0")) -}}
{{- end -}}
{{- end -}}

{{/* A Go duration in seconds (the form is checked before this is used). */}}
{{- define "acr.durationSeconds" -}}
{{- $factors := dict "ns" 0.000000001 "us" 0.000001 "µs" 0.000001 "μs" 0.000001 "ms" 0.001 "s" 1.0 "m" 60.0 "h" 3600.0 -}}
{{- $total := 0.0 -}}
{{- range $part := regexFindAll "(\\d+(\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)" . -1 -}}
{{- $number := regexReplaceAll "[^0-9.]+$" $part "" -}}
{{- $unit := regexReplaceAll "^[0-9.]+" $part "" -}}
{{- $total = addf $total (mulf (float64 $number) (get $factors $unit)) -}}
{{- end -}}
{{- $total -}}
{{- end -}}

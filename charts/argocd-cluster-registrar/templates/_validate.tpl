{{/*
The forms of single values, checked here rather than by values.schema.json: Helm's schema
validator can only print the raw pattern ("'abc' does not match pattern '^(0|((\\d+…'"), while
these messages name the value and say what it must look like. The registrar's own settings
are checked by acr.validateSettings, generated from the CLI's checks (_settings-validation.tpl),
so both refuse the same values with the same message. Called first by acr.validate.
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
{{- include "acr.validateSettings" . -}}
{{- /* resyncPeriod is the daemon's own setting (no core check to share); a number is its most
likely slip, so it is read as text. */ -}}
{{- $resync := toString $v.resyncPeriod -}}
{{- if not (regexMatch "^(0|((\\d+(\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h))+)$" $resync) -}}
{{- fail (printf "values: resyncPeriod %q is not a duration: write a number followed by a unit (ns, us, ms, s, m, h), units may be combined (e.g. resyncPeriod: 10m, or 1m30s)" $resync) -}}
{{- end -}}
{{- if lt (float64 (include "acr.durationSeconds" $resync)) 60.0 -}}
{{- fail (printf "values: resyncPeriod %q is shorter than the minimum of 1m: each re-list reads every Secret's metadata (e.g. resyncPeriod: 10m)" $resync) -}}
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

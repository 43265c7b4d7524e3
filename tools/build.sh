#!/usr/bin/env bash
# Builds the binaries the tests, demo and benchmarks need (kube-apiserver, kubectl, etcd,
# helm) from the wrapper modules beside this script, into a cache outside the repository
# keyed by version. A binary that is already cached and answers --version with the expected
# version is reused. Prints the directory holding the binaries as its last line.
#
#   tools/build.sh            build what is missing
#   tools/build.sh argocd     build (if missing) ArgoCD's controllers + check-secrets (one
#                             binary, tools/argocd); prints the binary's path as its last line
#   tools/build.sh capi       build (if missing) Cluster API's core and kubeadm control plane
#                             managers (tools/capi) with their CRDs beside them, and
#                             kube-controller-manager beside the plane's binaries; prints the
#                             CAPI directory as its last line
#   tools/build.sh actionlint build (if missing) actionlint (tools/actionlint), which lints
#                             .github/workflows; prints the binary's path as its last line
#   tools/build.sh promtool   build (if missing) Prometheus's promtool (tools/promtool); prints
#                             the binary's path as its last line
#   tools/build.sh inventory  build (if missing) the Cluster Inventory API's kubeconfig-secretreader
#                             plugin and our check-profiles (tools/inventory) with the
#                             ClusterProfile CRD in crds/ beside them; prints that directory
#   tools/build.sh kueue      build (if missing) Kueue's manager (tools/kueue) with Kueue's CRDs
#                             in crds/ beside it; prints that directory
#   tools/build.sh --print-replaces VERSION   print the replace block for a kubernetes version
#   tools/build.sh --print-argocd-replaces    print tools/argocd's replace block (argo-cd's own)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# modversion DIR MODULE: the version a wrapper's go.mod requires (block or single-line form).
modversion() {
  awk -v m="$2" '($1 == "require" && $2 == m) { print $3; exit } ($1 == m && $2 ~ /^v/) { print $2; exit }' "$here/$1/go.mod"
}
KUBE_VERSION="$(modversion kube-apiserver k8s.io/kubernetes)"
ETCD_VERSION="$(modversion etcd go.etcd.io/etcd/server/v3)"
HELM_VERSION="$(modversion helm helm.sh/helm/v3)"
ARGOCD_VERSION="$(modversion argocd github.com/argoproj/argo-cd/v3)"
CAPI_VERSION="$(modversion capi sigs.k8s.io/cluster-api)"
# argo-cd v3.6 needs Go 1.27; the module proxy serves that toolchain. Only this build uses it.
ARGOCD_GOTOOLCHAIN=go1.27.3
for v in "$KUBE_VERSION" "$ETCD_VERSION" "$HELM_VERSION" "$ARGOCD_VERSION" "$CAPI_VERSION"; do
  # An empty version would build binaries that panic at start (kube-apiserver parses it).
  [[ "$v" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "[tools] cannot read the versions from tools/*/go.mod" >&2; exit 1; }
done

if [[ "${1:-}" == "--print-replaces" ]]; then
  v="${2:?usage: build.sh --print-replaces v1.X.Y}"
  mod="$(go mod download -json "k8s.io/kubernetes@$v" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  grep -E '=> ./staging' "$mod" | awk -v s="v0.${v#v1.}" '{print "\t"$1" => "$1" "s}'
  exit 0
fi
if [[ "${1:-}" == "--print-argocd-replaces" ]]; then
  # argo-cd's own go.mod pins the k8s.io staging modules (and a few others) by replace; a
  # module requiring argo-cd needs the same block. Its local gitops-engine replace is dropped:
  # that module is published (tagged gitops-engine/vX.Y.Z) at the same version.
  mod="$(GOTOOLCHAIN=$ARGOCD_GOTOOLCHAIN go mod download -json "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  awk '/^replace \(/ { p = 1 } p { print } p && /^\)/ { exit }' "$mod"
  exit 0
fi

cache_root="${REGISTRAR_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argocd-cluster-registrar}"
bin="$cache_root/bin-k8s-$KUBE_VERSION-etcd-$ETCD_VERSION-helm-$HELM_VERSION"
mkdir -p "$bin"
# One build of the plane's binaries at a time per machine (several `control-plane up` may start
# together). ArgoCD, promtool, inventory and actionlint write only their own cache folders and
# build under locks of their own (below): they neither wait for nor hold up the plane, so
# scripts/setup builds them side by side (Go's build and module caches are safe for concurrent builds), which
# fills the time one build spends downloading modules or linking on one core.
case "${1:-}" in
  argocd | promtool | actionlint | inventory | kueue) exec 9>"$cache_root/.build-$1.lock" ;;
  *) exec 9>"$cache_root/.build.lock" ;;
esac
flock 9

# GOTOOLCHAIN=local: fail clearly instead of silently downloading another Go toolchain.
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -trimpath" GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
kminor="$(echo "$KUBE_VERSION" | cut -d. -f2)"

log() { printf '[tools] %s\n' "$*" >&2; }

# have NAME EXPECTED_SUBSTRING VERSION_ARGS...: true when the cached binary reports the version.
have() {
  local name="$1" want="$2"; shift 2
  local out
  # Captured first: `cmd | grep -q` can kill cmd with SIGPIPE, which pipefail reports as failure.
  [[ -x "$bin/$name" ]] && out="$("$bin/$name" "$@" 2>/dev/null)" && grep -qF -- "$want" <<<"$out"
}

built=0
# timed NAME FUNCTION: build with a heartbeat (go build itself prints nothing for minutes).
timed() {
  local what="$1"; shift
  local start=$SECONDS t=0 pid
  command -v go >/dev/null || { log "go is not installed (Go >= 1.26 is needed to build $what)"; exit 1; }
  log "building $what (cold builds take minutes; modules download on first use)"
  "$@" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null' EXIT
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    ((++t % 30 == 0)) && log "  still building $what ($((SECONDS - start))s)"
  done
  wait "$pid" || { log "building $what failed"; exit 1; }
  trap - EXIT
  built=1
  log "built $what in $((SECONDS - start))s ($(du -h "$bin/$what" | cut -f1))"
}

build_kube() {
  local vpkg=k8s.io/component-base/version
  local ld="-s -w -X $vpkg.gitVersion=$KUBE_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$kminor -X $vpkg.gitTreeState=clean"
  (cd "$here/kube-apiserver" && go build -tags selinux,notest -ldflags "$ld" -o "$bin/$1" "k8s.io/kubernetes/cmd/$1")
}
build_etcd() {
  (cd "$here/etcd" && go build -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3)
}
build_helm() {
  # The chartutil/lint k8sVersion* defaults give `helm template` and `helm lint` the plane's
  # Kubernetes version for .Capabilities.KubeVersion and kubeVersion constraints.
  local ld="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  ld+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$kminor"
  ld+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$kminor"
  (cd "$here/helm" && go build -ldflags "$ld" -o "$bin/helm" helm.sh/helm/v3/cmd/helm)
}

if [[ "${1:-}" == "argocd" ]]; then
  # Keyed by the wrapper's source too: check-secrets' output is part of the tests' contract,
  # so a changed checker must not be served from a binary built before the change.
  src="$(cat "$here"/argocd/*.go "$here"/argocd/go.mod "$here"/argocd/go.sum | sha256sum | cut -c1-12)"
  abin="$cache_root/bin-argocd-$ARGOCD_VERSION-$src"
  mkdir -p "$abin"
  build_argocd() {
    (cd "$here/argocd" && GOTOOLCHAIN=$ARGOCD_GOTOOLCHAIN go build -ldflags "-s -w" -o "$abin/argocd" .)
  }
  bin="$abin"
  have argocd "argo-cd $ARGOCD_VERSION" version || timed argocd build_argocd
  have argocd "argo-cd $ARGOCD_VERSION" version || { log "argocd version does not report $ARGOCD_VERSION"; exit 1; }
  # ArgoCD's CRDs from the same module version, beside the binary (tests and the demo apply
  # them with server-side apply: the ApplicationSet CRD is too large for client-side apply).
  if [[ ! -s "$abin/crds/applicationset-crd.yaml" ]]; then
    dir="$(cd "$here/argocd" && GOTOOLCHAIN=$ARGOCD_GOTOOLCHAIN go mod download -json "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
    mkdir -p "$abin/crds.tmp"
    cp "$dir"/manifests/crds/{application,applicationset,appproject}-crd.yaml "$abin/crds.tmp/"
    chmod 644 "$abin"/crds.tmp/*.yaml
    rm -rf "$abin/crds" && mv "$abin/crds.tmp" "$abin/crds"
  fi
  echo "$abin/argocd"
  exit 0
fi

if [[ "${1:-}" == "capi" ]]; then
  # Kubernetes' garbage collector (kube-controller-manager, which the plane does not run
  # otherwise) removes what CAPI's objects own once they are deleted, as in a real cluster.
  have kube-controller-manager "$KUBE_VERSION" --version ||
    timed kube-controller-manager build_kube kube-controller-manager
  have kube-controller-manager "$KUBE_VERSION" --version || { log "kube-controller-manager --version does not report $KUBE_VERSION"; exit 1; }
  # The managers have no --version flag: the directory is keyed by version and by the
  # wrapper's go.mod/go.sum, and each binary is moved into place only once fully linked.
  src="$(cat "$here"/capi/go.mod "$here"/capi/go.sum | sha256sum | cut -c1-12)"
  bin="$cache_root/bin-capi-$CAPI_VERSION-$src"
  mkdir -p "$bin"
  cminor="$(echo "$CAPI_VERSION" | cut -d. -f2)"
  # What the managers log as their version (CAPI's release builds set the same variables).
  capi_ld="-s -w -X sigs.k8s.io/cluster-api/version.gitVersion=$CAPI_VERSION"
  capi_ld+=" -X sigs.k8s.io/cluster-api/version.gitMajor=1 -X sigs.k8s.io/cluster-api/version.gitMinor=$cminor"
  capi_ld+=" -X sigs.k8s.io/cluster-api/version.gitTreeState=clean"
  build_capi() { # build_capi NAME PACKAGE
    (cd "$here/capi" && go build -ldflags "$capi_ld" -o "$bin/$1.tmp" "$2") && mv "$bin/$1.tmp" "$bin/$1"
  }
  [[ -x "$bin/capi-core" ]] || timed capi-core build_capi capi-core sigs.k8s.io/cluster-api/core
  [[ -x "$bin/capi-kcp" ]] || timed capi-kcp build_capi capi-kcp sigs.k8s.io/cluster-api/controlplane/kubeadm
  # The CRDs of the same module version, as its config/crd/bases hold them (without the
  # contract labels its release manifests add: the tests add them when they apply the CRDs).
  if [[ ! -s "$bin/crds/cluster.x-k8s.io_clusters.yaml" ]]; then
    dir="$(cd "$here/capi" && go mod download -json "sigs.k8s.io/cluster-api@$CAPI_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
    rm -rf "$bin/crds.tmp" && mkdir -p "$bin/crds.tmp"
    cp "$dir"/{core,controlplane/kubeadm,bootstrap/kubeadm}/config/crd/bases/*.yaml "$bin/crds.tmp/"
    chmod 644 "$bin"/crds.tmp/*.yaml
    rm -rf "$bin/crds" && mv "$bin/crds.tmp" "$bin/crds"
  fi
  echo "$bin"
  exit 0
fi

if [[ "${1:-}" == "kueue" ]]; then
  # Kueue's manager, run out of cluster as a consumer of ClusterProfiles (MultiKueue), keyed by
  # the module version and the wrapper's source. Its CRDs come from the same module version.
  KUEUE_VERSION="$(modversion kueue sigs.k8s.io/kueue)"
  [[ "$KUEUE_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { log "cannot read the version from tools/kueue/go.mod"; exit 1; }
  src="$(cat "$here"/kueue/*.go "$here"/kueue/go.mod "$here"/kueue/go.sum | sha256sum | cut -c1-12)"
  bin="$cache_root/bin-kueue-$KUEUE_VERSION-$src"
  mkdir -p "$bin"
  build_kueue() { # moved into place only once fully linked
    (cd "$here/kueue" && go build -ldflags "-s -w" -o "$bin/kueue.tmp" sigs.k8s.io/kueue/cmd/kueue) && mv "$bin/kueue.tmp" "$bin/kueue"
  }
  [[ -x "$bin/kueue" ]] || timed kueue build_kueue
  if [[ ! -d "$bin/crds" ]]; then
    dir="$(cd "$here/kueue" && go mod download -json "sigs.k8s.io/kueue@$KUEUE_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
    rm -rf "$bin/crds.tmp" && mkdir -p "$bin/crds.tmp"
    cp "$dir"/config/components/crd/bases/*.yaml "$bin/crds.tmp/"
    chmod 644 "$bin"/crds.tmp/*.yaml
    rm -rf "$bin/crds" && mv "$bin/crds.tmp" "$bin/crds"
  fi
  echo "$bin"
  exit 0
fi

if [[ "${1:-}" == "inventory" ]]; then
  # The inventory's own plugin and library (the standard's consumers use both), keyed by the
  # module version and by the wrapper's source: check-profiles' output is the tests' contract,
  # so a changed checker must not be served from a binary built before the change.
  INVENTORY_VERSION="$(modversion inventory sigs.k8s.io/cluster-inventory-api)"
  [[ "$INVENTORY_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { log "cannot read the version from tools/inventory/go.mod"; exit 1; }
  src="$(cat "$here"/inventory/*.go "$here"/inventory/go.mod "$here"/inventory/go.sum | sha256sum | cut -c1-12)"
  bin="$cache_root/bin-inventory-$INVENTORY_VERSION-$src"
  mkdir -p "$bin"
  build_inventory() { # build_inventory NAME PACKAGE: moved into place only once fully linked
    (cd "$here/inventory" && go build -ldflags "-s -w" -o "$bin/$1.tmp" "$2") && mv "$bin/$1.tmp" "$bin/$1"
  }
  [[ -x "$bin/kubeconfig-secretreader" ]] ||
    timed kubeconfig-secretreader build_inventory kubeconfig-secretreader sigs.k8s.io/cluster-inventory-api/plugins/kubeconfig-secretreader/cmd/plugin
  [[ -x "$bin/check-profiles" ]] || timed check-profiles build_inventory check-profiles .
  # The CRD of the same module version, as its config/crd/bases holds it (the tests validate
  # what the registrar writes against it, never against a copy of our own).
  if [[ ! -s "$bin/crds/multicluster.x-k8s.io_clusterprofiles.yaml" ]]; then
    dir="$(cd "$here/inventory" && go mod download -json "sigs.k8s.io/cluster-inventory-api@$INVENTORY_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
    rm -rf "$bin/crds.tmp" && mkdir -p "$bin/crds.tmp"
    cp "$dir"/config/crd/bases/multicluster.x-k8s.io_clusterprofiles.yaml "$bin/crds.tmp/"
    chmod 644 "$bin"/crds.tmp/*.yaml
    rm -rf "$bin/crds" && mv "$bin/crds.tmp" "$bin/crds"
  fi
  echo "$bin"
  exit 0
fi

if [[ "${1:-}" == "actionlint" ]]; then
  # actionlint checks .github/workflows (scripts/release/workflows.test.ts); keyed by version.
  ACTIONLINT_VERSION="$(modversion actionlint github.com/rhysd/actionlint)"
  [[ "$ACTIONLINT_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { log "cannot read actionlint's version from tools/actionlint/go.mod"; exit 1; }
  bin="$cache_root/bin-actionlint-$ACTIONLINT_VERSION"
  mkdir -p "$bin"
  build_actionlint() {
    # Its -version reads this variable (a wrapper module's own version would be "(devel)").
    local ld="-s -w -X github.com/rhysd/actionlint.version=$ACTIONLINT_VERSION"
    (cd "$here/actionlint" && go build -ldflags "$ld" -o "$bin/actionlint" github.com/rhysd/actionlint/cmd/actionlint)
  }
  have actionlint "$ACTIONLINT_VERSION" -version || timed actionlint build_actionlint
  have actionlint "$ACTIONLINT_VERSION" -version || { log "actionlint -version does not report $ACTIONLINT_VERSION"; exit 1; }
  echo "$bin/actionlint"
  exit 0
fi

if [[ "${1:-}" == "promtool" ]]; then
  # Prometheus's promtool, for the chart's alert-rule tests (check rules, test rules). Its
  # own cache folder, keyed by the Prometheus module version, and its own lock, so its build
  # never holds up a test run waiting for the control plane; prints the binary's path.
  PROMTOOL_VERSION="$(modversion promtool github.com/prometheus/prometheus)"
  [[ "$PROMTOOL_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { log "cannot read the version from tools/promtool/go.mod"; exit 1; }
  bin="$cache_root/bin-promtool-$PROMTOOL_VERSION"
  mkdir -p "$bin"
  build_promtool() {
    # remove_all_sd (Prometheus's own build tag) leaves out the cloud service discoveries,
    # which rule checks never use: most of a full build's time and size.
    (cd "$here/promtool" && go build -tags remove_all_sd -ldflags "-s -w -X github.com/prometheus/common/version.Version=$PROMTOOL_VERSION" -o "$bin/promtool" github.com/prometheus/prometheus/cmd/promtool)
  }
  have promtool "version $PROMTOOL_VERSION" --version || timed promtool build_promtool
  have promtool "version $PROMTOOL_VERSION" --version || { log "promtool --version does not report $PROMTOOL_VERSION"; exit 1; }
  echo "$bin/promtool"
  exit 0
fi

have etcd "${ETCD_VERSION#v}" --version || timed etcd build_etcd
have kube-apiserver "$KUBE_VERSION" --version || timed kube-apiserver build_kube kube-apiserver
have kubectl "$KUBE_VERSION" version --client || timed kubectl build_kube kubectl
have helm "$HELM_VERSION" version --short || timed helm build_helm

for b in etcd kube-apiserver kubectl helm; do
  [[ -x "$bin/$b" ]] || { log "missing $bin/$b after build"; exit 1; }
done
have etcd "${ETCD_VERSION#v}" --version || { log "etcd --version does not report $ETCD_VERSION"; exit 1; }
have kube-apiserver "$KUBE_VERSION" --version || { log "kube-apiserver --version does not report $KUBE_VERSION"; exit 1; }
have kubectl "$KUBE_VERSION" version --client || { log "kubectl does not report $KUBE_VERSION"; exit 1; }
have helm "$HELM_VERSION" version --short || { log "helm does not report $HELM_VERSION"; exit 1; }
((built)) && log "binaries ready in $bin"
echo "$bin"

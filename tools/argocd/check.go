package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/argoproj/argo-cd/v3/util/db"
)

// verdict is one line of check-secrets' output. It never carries a credential: only the
// Secret's identity, the server and name ArgoCD parsed, and ArgoCD's error text.
type verdict struct {
	Namespace string `json:"namespace"`
	Secret    string `json:"secret"`
	Accepted  bool   `json:"accepted"`
	Server    string `json:"server,omitempty"`
	Name      string `json:"name,omitempty"`
	Error     string `json:"error,omitempty"`
	// Exec is the exec provider of the rest.Config ArgoCD derives (from execProviderConfig or
	// awsAuthConfig): a command and its arguments, never a credential.
	Exec *execVerdict `json:"exec,omitempty"`
}

// execVerdict is the derived rest.Config's ExecProvider, as the application controller would run it.
type execVerdict struct {
	Command    string            `json:"command"`
	Args       []string          `json:"args"`
	Env        map[string]string `json:"env"`
	APIVersion string            `json:"apiVersion"`
}

// checkSecrets reads a Secret list (`kubectl get secrets -o json`) or one Secret from in and
// writes one verdict per Secret: what ArgoCD's application controller does with a cluster
// Secret before it connects (db.SecretToCluster, Cluster.RawRestConfig, then client-go's TLS
// setup, which parses the CA, certificate and key). Exit status 1 when any Secret is refused.
func checkSecrets(in io.Reader, out io.Writer) int {
	var list struct {
		Kind  string          `json:"kind"`
		Items []corev1.Secret `json:"items"`
	}
	raw, err := io.ReadAll(in)
	if err == nil {
		err = json.Unmarshal(raw, &list)
	}
	if err != nil {
		fmt.Fprintf(out, "%s\n", mustJSON(verdict{Error: "cannot read the Secrets: " + err.Error()}))
		return 2
	}
	if list.Kind == "Secret" {
		var one corev1.Secret
		if err := json.Unmarshal(raw, &one); err != nil {
			fmt.Fprintf(out, "%s\n", mustJSON(verdict{Error: "cannot read the Secret: " + err.Error()}))
			return 2
		}
		list.Items = []corev1.Secret{one}
	}
	status := 0
	for i := range list.Items {
		v := judge(&list.Items[i])
		if !v.Accepted {
			status = 1
		}
		fmt.Fprintf(out, "%s\n", mustJSON(v))
	}
	return status
}

func judge(s *corev1.Secret) verdict {
	v := verdict{Namespace: s.Namespace, Secret: s.Name}
	cluster, err := db.SecretToCluster(s)
	if err != nil {
		v.Error = "SecretToCluster: " + err.Error()
		return v
	}
	v.Server, v.Name = cluster.Server, cluster.Name
	if cluster.Server == "" {
		v.Error = "no server"
		return v
	}
	config, err := cluster.RawRestConfig()
	if err != nil {
		v.Error = "RawRestConfig: " + err.Error()
		return v
	}
	if e := config.ExecProvider; e != nil {
		ev := &execVerdict{Command: e.Command, Args: e.Args, Env: map[string]string{}, APIVersion: e.APIVersion}
		if ev.Args == nil {
			ev.Args = []string{}
		}
		for _, env := range e.Env {
			ev.Env[env.Name] = env.Value
		}
		v.Exec = ev
	}
	if _, err := rest.TLSConfigFor(config); err != nil {
		v.Error = "TLSConfigFor: " + err.Error()
		return v
	}
	if _, err := rest.HTTPClientFor(config); err != nil {
		v.Error = "HTTPClientFor: " + err.Error()
		return v
	}
	v.Accepted = true
	return v
}

func mustJSON(v verdict) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// argoVersion is the argo-cd module version this binary was built from, for build.sh's cache
// check.
func argoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/argoproj/argo-cd/v3" {
				return "argo-cd " + dep.Version
			}
		}
	}
	return "argo-cd unknown"
}

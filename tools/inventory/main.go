// check-profiles reads ClusterProfiles the way the inventory's consumers do and proves each one
// usable: it builds a client with the module's pkg/access (a provider file, then
// BuildConfigFromCP, which runs the exec plugin the profile names) and sends a SelfSubjectReview
// to the child API server. One JSON line per profile; never a credential (only the profile's
// identity, the server, the provider matched, the user the child saw, and error texts).
// Exit status 1 when any profile could not be used. Never shipped.
//
//	check-profiles --kubeconfig K --namespace NS --provider-file F [--name PROFILE]
//
// The inventory's kubeconfig-secretreader plugin is built beside it (tools/build.sh inventory).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	inventory "sigs.k8s.io/cluster-inventory-api/client/clientset/versioned"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
)

type result struct {
	Namespace      string   `json:"namespace"`
	Profile        string   `json:"profile"`
	ClusterManager string   `json:"clusterManager,omitempty"`
	Server         string   `json:"server,omitempty"`
	Authenticated  bool     `json:"authenticated"`
	Username       string   `json:"username,omitempty"`
	Groups         []string `json:"groups,omitempty"`
	Error          string   `json:"error,omitempty"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster holding the ClusterProfiles")
	namespace := flag.String("namespace", "", "the inventory namespace")
	name := flag.String("name", "", "one ClusterProfile (default: every one in the namespace)")
	providerFile := flag.String("provider-file", "", "the consumer's provider file (pkg/access NewFromFile)")
	timeout := flag.Duration("timeout", 30*time.Second, "deadline for the whole check")
	flag.Parse()
	if *namespace == "" || *providerFile == "" {
		fmt.Fprintln(os.Stderr, "usage: check-profiles --kubeconfig K --namespace NS --provider-file F [--name PROFILE]")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	os.Exit(run(ctx, os.Stdout, *kubeconfig, *namespace, *name, *providerFile))
}

func run(ctx context.Context, out io.Writer, kubeconfig, namespace, name, providerFile string) int {
	fail := func(what string, err error) int {
		emit(out, result{Namespace: namespace, Profile: name, Error: what + ": " + err.Error()})
		return 2
	}
	providers, err := access.NewFromFile(providerFile)
	if err != nil {
		return fail("provider file", err)
	}
	hub, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fail("kubeconfig", err)
	}
	client, err := inventory.NewForConfig(hub)
	if err != nil {
		return fail("client", err)
	}
	var profiles []v1alpha1.ClusterProfile
	if name != "" {
		p, err := client.ApisV1alpha1().ClusterProfiles(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fail("get", err)
		}
		profiles = append(profiles, *p)
	} else {
		list, err := client.ApisV1alpha1().ClusterProfiles(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fail("list", err)
		}
		profiles = list.Items
	}
	status := 0
	for i := range profiles {
		r := check(ctx, providers, &profiles[i])
		if !r.Authenticated {
			status = 1
		}
		emit(out, r)
	}
	return status
}

// check does what a consumer does with one profile: pkg/access builds the rest.Config (the
// plugin runs when the client first needs a credential), then one authenticated request.
func check(ctx context.Context, providers *access.Config, p *v1alpha1.ClusterProfile) result {
	r := result{Namespace: p.Namespace, Profile: p.Name, ClusterManager: p.Spec.ClusterManager.Name}
	config, err := providers.BuildConfigFromCP(p)
	if err != nil {
		r.Error = "BuildConfigFromCP: " + err.Error()
		return r
	}
	r.Server = config.Host
	child, err := kubernetes.NewForConfig(config)
	if err != nil {
		r.Error = "client: " + err.Error()
		return r
	}
	review, err := child.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		r.Error = "SelfSubjectReview: " + err.Error()
		return r
	}
	r.Authenticated = true
	r.Username = review.Status.UserInfo.Username
	r.Groups = review.Status.UserInfo.Groups
	return r
}

func emit(out io.Writer, r result) {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(out, "%s\n", b)
}

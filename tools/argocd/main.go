// One binary for the ArgoCD parts the tests and the demo run out-of-cluster against a test
// plane: the ApplicationSet controller, the application controller, and check-secrets, which
// asks ArgoCD's own code whether it accepts cluster Secrets. One binary instead of three saves
// two links of the same dependency graph (minutes and hundreds of MB on a cold machine).
// Never shipped.
//
//	argocd applicationset-controller --kubeconfig K --namespace NS ...
//	argocd application-controller --kubeconfig K --namespace NS ...
//	kubectl get secrets -o json | argocd check-secrets
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	applicationset "github.com/argoproj/argo-cd/v3/cmd/argocd-applicationset-controller/commands"
	"github.com/argoproj/argo-cd/v3/util/log"
)

func init() {
	// As ArgoCD's own main: klog follows the configured level and format. ArgoCD's main also
	// calls grpc.DisableSRVLookups(); we do not: it breaks name resolution out-of-cluster and
	// neither controller here dials gRPC by SRV name.
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
}

const usage = "usage: argocd applicationset-controller|application-controller|check-secrets|version [flags]"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	var command *cobra.Command
	switch os.Args[1] {
	case "applicationset-controller":
		command = applicationset.NewCommand()
	case "application-controller":
		command = appcontroller.NewCommand()
	case "check-secrets":
		os.Exit(checkSecrets(os.Stdin, os.Stdout))
	case "version":
		fmt.Println(argoVersion())
		return
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	command.SetArgs(os.Args[2:])
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}

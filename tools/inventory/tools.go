//go:build tools

// The plugin is a main package of the required module; importing it here keeps it (and its
// dependencies) in go.mod and go.sum, so `go build` of it needs nothing go mod tidy dropped.
package main

import _ "sigs.k8s.io/cluster-inventory-api/plugins/kubeconfig-secretreader/cmd/plugin"

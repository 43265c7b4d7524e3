//go:build tools

// Kueue's manager is a main package of the required module; importing it here keeps it (and its
// dependencies) in go.mod and go.sum, so `go build` of it needs nothing go mod tidy dropped.
package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"

package testkit

import (
	"fmt"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
)

// Catalogue is a model catalogue (session.Models) of its own, for tests that check a front
// end takes its models from the session host: two models of provider "cat" that can be
// called and one of "locked", whose provider has no key. Provider serves the callable ones.
type Catalogue struct{ Provider core.Provider }

// The catalogue's models, in its listing order: CatM1, LockedM3, CatM2.
var (
	CatM1     = core.Model{Provider: "cat", ID: "m1", Name: "Cat One"}
	CatM2     = core.Model{Provider: "cat", ID: "m2", Name: "Cat Two"}
	LockedM3  = core.Model{Provider: "locked", ID: "m3"}
	CatModels = []core.Model{CatM1, LockedM3, CatM2}
)

// List implements session.Models.
func (c Catalogue) List() []core.Model { return CatModels }

// Resolve implements session.Models: "locked" is a provider problem, an unknown id not found.
func (c Catalogue) Resolve(provider, id string) (core.Model, core.Provider, error) {
	for _, m := range CatModels {
		if m.ID == id && (provider == "" || provider == m.Provider) {
			if m.Provider == "locked" {
				return core.Model{}, nil, &session.ProviderProblem{Message: "No API key for provider locked"}
			}
			return m, c.Provider, nil
		}
	}
	return core.Model{}, nil, fmt.Errorf("Model not found: %s", id)
}

// KeylessCatalogue is a model catalogue (session.Models) that lists faux's default model,
// served by Provider (as a reasoning model if Reasoning is set), and resolves one more,
// "keyless", whose provider has no key.
type KeylessCatalogue struct {
	Provider  core.Provider
	Reasoning bool
}

// List implements session.Models.
func (c KeylessCatalogue) List() []core.Model { return []core.Model{faux.DefaultModel()} }

// Resolve implements session.Models.
func (c KeylessCatalogue) Resolve(provider, id string) (core.Model, core.Provider, error) {
	switch id {
	case "faux-1":
		m := faux.DefaultModel()
		m.Reasoning = m.Reasoning || c.Reasoning
		return m, c.Provider, nil
	case "keyless":
		return core.Model{}, nil, &session.ProviderProblem{Message: "No API key for provider local"}
	}
	return core.Model{}, nil, fmt.Errorf("Model not found: %s", id)
}

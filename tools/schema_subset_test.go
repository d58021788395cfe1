package tools

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// Every built-in tool's parameter schema is validated by core's own validator: a keyword
// outside its subset would bring a JSON Schema library's compile into the tool's first call.
func TestBuiltinSchemasStayInTheValidatorSubset(t *testing.T) {
	built, err := New(append(append([]string{}, Names...), PlanToolName), Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != len(Names)+1 {
		t.Fatalf("%d tools", len(built))
	}
	for _, tool := range built {
		info := tool.Info()
		if !core.InValidatorSubset(info.Parameters) {
			t.Errorf("tool %s: its schema uses a keyword outside core's validator subset: %s", info.Name, info.Parameters)
		}
	}
}

package resources

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// piCases are the expected results of pi 1.6.0's own parseCommandArgs, substituteArgs and
// expandPromptTemplate for the inputs of testdata/gen_pi_cases.mjs, which wrote the file.
type piCases struct {
	Args []struct {
		Input string   `json:"input"`
		Want  []string `json:"want"`
	} `json:"args"`
	Substitute []struct {
		Template string   `json:"template"`
		Args     []string `json:"args"`
		Want     string   `json:"want"`
	} `json:"substitute"`
	Templates []struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	} `json:"templates"`
	Expand []struct {
		Input string `json:"input"`
		Want  string `json:"want"`
	} `json:"expand"`
}

func loadPiCases(t *testing.T) piCases {
	t.Helper()
	data, err := os.ReadFile("testdata/pi_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var c piCases
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Args) == 0 || len(c.Substitute) == 0 || len(c.Expand) == 0 {
		t.Fatal("testdata/pi_cases.json has no cases")
	}
	return c
}

func TestParseArgsAsPi(t *testing.T) {
	for _, c := range loadPiCases(t).Args {
		got := ParseArgs(c.Input)
		if len(got) == 0 && len(c.Want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.Want) {
			t.Errorf("ParseArgs(%q) = %q, pi gives %q", c.Input, got, c.Want)
		}
	}
}

func TestSubstituteAsPi(t *testing.T) {
	for _, c := range loadPiCases(t).Substitute {
		if got := Substitute(c.Template, c.Args); got != c.Want {
			t.Errorf("Substitute(%q, %q) = %q, pi gives %q", c.Template, c.Args, got, c.Want)
		}
	}
}

func TestExpandTemplateAsPi(t *testing.T) {
	cases := loadPiCases(t)
	set := &Set{}
	for _, tp := range cases.Templates {
		set.Templates = append(set.Templates, Template{Name: tp.Name, Content: tp.Content})
	}
	for _, c := range cases.Expand {
		if got := set.Expand(c.Input); got != c.Want {
			t.Errorf("Expand(%q) = %q, pi gives %q", c.Input, got, c.Want)
		}
	}
}

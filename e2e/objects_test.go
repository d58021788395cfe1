package e2e_test

// objectsAt returns the objects of the array m[key] of a decoded request body (none when it
// is missing; an element that is not an object is nil).
func objectsAt(m map[string]any, key string) []map[string]any {
	raw, _ := m[key].([]any)
	var out []map[string]any
	for _, v := range raw {
		obj, _ := v.(map[string]any)
		out = append(out, obj)
	}
	return out
}

package rpc

// MethodNames lists the methods the server answers, for the test that checks them against
// the schema.
func MethodNames() []string {
	names := make([]string, 0, len(methods))
	for name := range methods {
		names = append(names, name)
	}
	return names
}

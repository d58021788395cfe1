package openai

import (
	"net"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
)

// DefaultAzureAPIVersion is the api-version sent to Azure OpenAI when none is configured (pi's
// default): the v1 API.
const DefaultAzureAPIVersion = "v1"

// azureRoute splits an Azure OpenAI base URL into the endpoint openai-go's azure package
// takes (it puts "/openai" after the endpoint's path itself) and the Responses path below it:
// https://R.openai.azure.com/openai/v1 (pi's form, from AZURE_OPENAI_RESOURCE_NAME) and the
// bare https://R.openai.azure.com both reach .../openai/v1/responses; a base URL ending in
// /openai reaches .../openai/responses, the route of the dated api-versions.
func azureRoute(base *url.URL) (*url.URL, string) {
	root := *base
	p := strings.TrimRight(root.Path, "/")
	path := "v1/" + responsesPath
	switch {
	case strings.HasSuffix(p, "/openai/v1"):
		p = strings.TrimSuffix(p, "/openai/v1")
	case strings.HasSuffix(p, "/openai"):
		p, path = strings.TrimSuffix(p, "/openai"), responsesPath
	}
	root.Path, root.RawPath = p+"/", ""
	return &root, path
}

// azureOptions are the client options of an Azure endpoint: the endpoint and api-version,
// and the key in the api-key header. The azure package sends credentials over plain HTTP
// only to a loopback address (a local test server), and only when asked.
func azureOptions(root *url.URL, cfg Config) []option.RequestOption {
	version := cfg.AzureAPIVersion
	if version == "" {
		version = DefaultAzureAPIVersion
	}
	opts := []option.RequestOption{azure.WithEndpoint(root.String(), version)}
	if cfg.APIKey != "" {
		opts = append(opts, azure.WithAPIKey(cfg.APIKey))
	}
	if root.Scheme == "http" && isLoopback(root.Hostname()) {
		opts = append(opts, azure.WithUnsafeAllowHTTP())
	}
	return opts
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// deployment is the name the endpoint knows a model by: its Azure deployment, if it has one.
func (p *Provider) deployment(model string) string {
	if d, ok := p.cfg.Deployments[model]; ok && d != "" {
		return d
	}
	return model
}

// ParseDeploymentMap reads AZURE_OPENAI_DEPLOYMENT_NAME_MAP as pi does: comma-separated
// model=deployment pairs, spaces around each trimmed, malformed pairs skipped.
func ParseDeploymentMap(s string) map[string]string {
	out := map[string]string{}
	for _, entry := range strings.Split(s, ",") {
		model, deployment, ok := strings.Cut(strings.TrimSpace(entry), "=")
		model, deployment = strings.TrimSpace(model), strings.TrimSpace(deployment)
		if !ok || model == "" || deployment == "" {
			continue
		}
		out[model] = deployment
	}
	return out
}

// AzureBaseURL is the base URL of an Azure OpenAI resource as pi resolves it: baseURL
// (AZURE_OPENAI_BASE_URL) when set, else https://RESOURCE.openai.azure.com/openai/v1 from the
// resource name (AZURE_OPENAI_RESOURCE_NAME); "" when neither is set.
func AzureBaseURL(baseURL, resource string) string {
	if b := strings.TrimSpace(baseURL); b != "" {
		return strings.TrimRight(b, "/")
	}
	if r := strings.TrimSpace(resource); r != "" {
		return "https://" + r + ".openai.azure.com/openai/v1"
	}
	return ""
}

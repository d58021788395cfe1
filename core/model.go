package core

// ThinkingLevel is how much reasoning the model is asked for.
type ThinkingLevel string

// The thinking levels of pi-ai's ThinkingLevel.
const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
)

// ThinkingLevels lists every level from least to most reasoning.
var ThinkingLevels = []ThinkingLevel{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh}

// ModelCost is a model's price in dollars per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Model describes a model as pi does (pi-ai's Model type).
type Model struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	API      string `json:"api"`
	Provider string `json:"provider"`
	BaseURL  string `json:"baseUrl,omitempty"`
	// Reasoning says the model accepts a thinking level other than off.
	Reasoning bool `json:"reasoning"`
	// ThinkingLevelMap maps a level to the provider's value; a nil value marks the level
	// unsupported, and xhigh is supported only when it is present.
	ThinkingLevelMap map[ThinkingLevel]*string `json:"thinkingLevelMap,omitempty"`
	Input            []string                  `json:"input"`
	Cost             ModelCost                 `json:"cost"`
	ContextWindow    int                       `json:"contextWindow"`
	MaxTokens        int                       `json:"maxTokens"`
	Headers          map[string]string         `json:"headers,omitempty"`
	Compat           map[string]any            `json:"compat,omitempty"`
}

// SupportsImages reports whether the model accepts image input.
func (m *Model) SupportsImages() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// SupportedThinkingLevels lists the levels the model accepts (pi's getSupportedThinkingLevels).
func (m *Model) SupportedThinkingLevels() []ThinkingLevel {
	if !m.Reasoning {
		return []ThinkingLevel{ThinkingOff}
	}
	levels := make([]ThinkingLevel, 0, len(ThinkingLevels))
	for _, l := range ThinkingLevels {
		v, present := m.ThinkingLevelMap[l]
		if present && v == nil {
			continue
		}
		if l == ThinkingXHigh && !present {
			continue
		}
		levels = append(levels, l)
	}
	return levels
}

// ClampThinkingLevel returns level if the model supports it, else the next higher supported
// level, else the next lower one, else off (pi's clampThinkingLevel).
func (m *Model) ClampThinkingLevel(level ThinkingLevel) ThinkingLevel {
	supported := m.SupportedThinkingLevels()
	has := func(l ThinkingLevel) bool {
		for _, s := range supported {
			if s == l {
				return true
			}
		}
		return false
	}
	if has(level) {
		return level
	}
	idx := -1
	for i, l := range ThinkingLevels {
		if l == level {
			idx = i
		}
	}
	if idx < 0 {
		return ThinkingOff
	}
	for i := idx + 1; i < len(ThinkingLevels); i++ {
		if has(ThinkingLevels[i]) {
			return ThinkingLevels[i]
		}
	}
	for i := idx - 1; i >= 0; i-- {
		if has(ThinkingLevels[i]) {
			return ThinkingLevels[i]
		}
	}
	return ThinkingOff
}

// CostOf prices usage with the model's per-million-token prices (pi-ai's calculateCost).
func (m *Model) CostOf(u Usage) Cost {
	c := Cost{
		Input:      m.Cost.Input / 1e6 * float64(u.Input),
		Output:     m.Cost.Output / 1e6 * float64(u.Output),
		CacheRead:  m.Cost.CacheRead / 1e6 * float64(u.CacheRead),
		CacheWrite: m.Cost.CacheWrite / 1e6 * float64(u.CacheWrite),
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite
	return c
}

package pimode

import (
	"encoding/json"
	"sort"
)

// piTreeNode is a node of pi's session tree (SessionManager.getTree): the entry as the file
// holds it, its children, and the entry's label when one is set.
type piTreeNode struct {
	Entry    json.RawMessage `json:"entry"`
	Children []*piTreeNode   `json:"children"`
	Label    string          `json:"label,omitempty"`
}

// entryHead is what building the tree reads of an entry.
type entryHead struct {
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Type      string  `json:"type"`
	Timestamp string  `json:"timestamp"`
	TargetID  string  `json:"targetId"`
	Label     *string `json:"label"`
}

// buildPiTree arranges entries (in file order) as pi does: an entry whose parentId is null,
// itself or unknown is a root; children are sorted by timestamp (file order among equals);
// the latest label entry for a target labels it, an empty one clears it.
func buildPiTree(entries []json.RawMessage) ([]*piTreeNode, error) {
	heads := make([]entryHead, len(entries))
	nodes := make(map[string]*piTreeNode, len(entries))
	labels := map[string]string{}
	for i, raw := range entries {
		if err := json.Unmarshal(raw, &heads[i]); err != nil {
			return nil, err
		}
		h := &heads[i]
		nodes[h.ID] = &piTreeNode{Entry: raw, Children: []*piTreeNode{}}
		if h.Type == "label" {
			labels[h.TargetID] = ""
			if h.Label != nil {
				labels[h.TargetID] = *h.Label
			}
		}
	}
	roots := []*piTreeNode{}
	for i := range heads {
		h := &heads[i]
		n := nodes[h.ID]
		n.Label = labels[h.ID]
		parent, ok := (*piTreeNode)(nil), false
		if h.ParentID != nil && *h.ParentID != h.ID {
			parent, ok = nodes[*h.ParentID]
		}
		if ok {
			parent.Children = append(parent.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	stamp := make(map[*piTreeNode]string, len(heads))
	for i := range heads {
		stamp[nodes[heads[i].ID]] = heads[i].Timestamp
	}
	for _, n := range nodes {
		sort.SliceStable(n.Children, func(a, b int) bool { return stamp[n.Children[a]] < stamp[n.Children[b]] })
	}
	return roots, nil
}

package faux

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/pi-rpc/pi-rpc/core"
)

// prepared is a block ready to stream: tool-call ids assigned and arguments serialized.
type prepared struct {
	kind      core.ContentType
	payload   string // text, thinking, or the arguments' JSON
	deltas    []string
	signature string
	id, name  string
}

// prepare checks the scripted blocks and serializes what they stream.
func (p *Provider) prepare(content []Block) ([]prepared, *core.ProviderError) {
	out := make([]prepared, len(content))
	for i := range content {
		blk := &content[i]
		pb := prepared{kind: blk.Type, payload: blk.Text, deltas: blk.Deltas, signature: blk.Signature}
		if blk.Deltas != nil {
			pb.payload = concat(blk.Deltas)
		}
		switch blk.Type {
		case core.ContentText, core.ContentThinking:
		case core.ContentToolCall:
			pb.id, pb.name = blk.ID, blk.Name
			if pb.id == "" {
				pb.id = p.nextToolID()
			}
			if blk.Deltas == nil {
				args, err := marshalArguments(blk.Arguments)
				if err != nil {
					return nil, &core.ProviderError{Kind: core.ErrorOther, Message: fmt.Sprintf("faux: content[%d]: arguments: %v", i, err)}
				}
				pb.payload = args
			}
		default:
			return nil, &core.ProviderError{Kind: core.ErrorOther, Message: fmt.Sprintf("faux: content[%d]: unsupported block type %q", i, blk.Type)}
		}
		out[i] = pb
	}
	return out, nil
}

// marshalArguments is JSON.stringify's counterpart: compact, and without Go's HTML escaping,
// so a command like "a && b" streams as the model would write it.
func marshalArguments(args map[string]any) (string, error) {
	if args == nil {
		return "{}", nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return "", err
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// chunker decides delta sizes. A fixed size wins; otherwise sizes follow pi's "3 to 5 tokens
// of 4 characters", drawn from a PCG seeded with the provider's seed and the call index, so
// each call's deltas are the same on every run whatever the other calls streamed.
type chunker struct {
	fixed      int
	minT, maxT int
	rng        rand.PCG
}

// size returns the length in runes of the next delta.
func (c *chunker) size() int {
	if c.fixed > 0 {
		return c.fixed
	}
	span := uint64(c.maxT - c.minT + 1)
	return (c.minT + int(c.rng.Uint64()%span)) * 4
}

// cutRunes splits s after n runes without allocating.
func cutRunes(s string, n int) (head, tail string) {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i], s[i:]
}

// streamer streams one step. Every delta is preceded by a chunk boundary, where the test hook
// runs, the stream may hang or pause, and cancellation is checked.
type streamer struct {
	ctx   context.Context
	b     *core.MessageBuilder
	step  *Step
	delay time.Duration
	sleep func(context.Context, time.Duration) error
	chunk int
	sizes chunker
}

func newStreamer(ctx context.Context, b *core.MessageBuilder, step *Step, cfg *config, callIndex uint64) *streamer {
	s := &streamer{
		ctx:   ctx,
		b:     b,
		step:  step,
		delay: cfg.delay,
		sleep: cfg.sleep,
		sizes: chunker{fixed: cfg.chunkSize, minT: cfg.minTokens, maxT: cfg.maxTokens},
	}
	s.sizes.rng.Seed(cfg.seed, callIndex)
	if step.ChunkSize > 0 {
		s.sizes.fixed = step.ChunkSize
	}
	if step.Delay > 0 {
		s.delay = step.Delay
	}
	return s
}

// run streams the blocks, then ends the message as scripted. It returns as soon as the
// consumer stops or the stream fails.
func (s *streamer) run(blocks []prepared) {
	for i := range blocks {
		if !s.block(i, &blocks[i]) {
			return
		}
	}
	if !s.boundary(true) {
		return
	}
	reason := s.step.stopReason()
	if reason == core.StopReasonError || reason == core.StopReasonAborted {
		s.b.Fail(s.step.failure(reason))
		return
	}
	s.b.SetStopReason(reason)
	s.b.Done()
}

// block streams one block and ends it, so every block's events run start, deltas, end, as
// pi's faux provider streams them (and consecutive blocks of one kind stay separate).
func (s *streamer) block(index int, blk *prepared) bool {
	if len(blk.deltas) > 0 {
		for _, d := range blk.deltas {
			if !s.boundary(false) || !s.emit(index, blk, d) {
				return false
			}
		}
		return s.b.EndBlocks()
	}
	rest := blk.payload
	for first := true; first || rest != ""; first = false {
		var delta string
		delta, rest = cutRunes(rest, s.sizes.size())
		if !s.boundary(false) || !s.emit(index, blk, delta) {
			return false
		}
	}
	return s.b.EndBlocks()
}

func (s *streamer) emit(index int, blk *prepared, delta string) bool {
	switch blk.kind {
	case core.ContentThinking:
		return s.b.Thinking(delta, blk.signature)
	case core.ContentToolCall:
		return s.b.ToolCall(index, blk.id, blk.name, delta)
	default:
		return s.b.Text(delta)
	}
}

// boundary runs the chunk boundary before the next delta, or before the terminal event when
// final is set. It reports false when the stream has ended.
func (s *streamer) boundary(final bool) bool {
	k := s.chunk
	if s.step.BeforeChunk != nil {
		s.step.BeforeChunk(s.ctx, k)
	}
	if s.step.Hang && (final || k >= s.step.HangAfter) {
		<-s.ctx.Done()
		s.b.Fail(core.Aborted())
		return false
	}
	if !final && s.delay > 0 {
		if err := s.sleep(s.ctx, s.delay); err != nil {
			s.b.Fail(core.Aborted())
			return false
		}
	}
	if s.ctx.Err() != nil {
		s.b.Fail(core.Aborted())
		return false
	}
	if !final {
		s.chunk++
	}
	return true
}

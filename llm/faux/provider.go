package faux

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// QueueEmptyMessage is the error message of a call that finds no scripted step, pi's exact
// text, so tests written against pi's faux provider keep matching.
const QueueEmptyMessage = "No more faux responses queued"

// DefaultModel returns the model a provider reports unless [WithModel] replaces it: pi's
// faux-1, free and text-and-image.
func DefaultModel() core.Model {
	return core.Model{
		ID:            "faux-1",
		Name:          "Faux Model",
		API:           "faux",
		Provider:      "faux",
		Reasoning:     false,
		Input:         []string{"text", "image"},
		ContextWindow: 128000,
		MaxTokens:     16384,
	}
}

// Provider is a scripted model. Each call to Stream takes the next queued [Step] and streams
// it through a [core.MessageBuilder], so the events follow exactly the rules a real provider's
// do. A Provider is safe for concurrent use.
type Provider struct {
	cfg config

	mu       sync.Mutex
	steps    []Step
	calls    int
	requests []*core.Request
	toolIDs  int
	// prompts holds the last serialized prompt per session id, to simulate prompt caching.
	prompts map[string]string
}

// config is what the options set; it never changes after New.
type config struct {
	model     core.Model
	chunkSize int
	minTokens int
	maxTokens int
	seed      uint64
	delay     time.Duration
	sleep     func(ctx context.Context, d time.Duration) error
	now       func() time.Time
}

// Option configures a [Provider].
type Option func(*config)

// WithModel replaces the default model reported by [Provider.Model] and used for requests
// that carry no model.
func WithModel(m core.Model) Option { return func(c *config) { c.model = m } }

// WithChunkSize makes every delta n runes long (the last of a block may be shorter), for
// tests that spell out their deltas. n == 1 streams one rune per delta. It overrides
// [WithTokenSize].
func WithChunkSize(n int) Option { return func(c *config) { c.chunkSize = n } }

// WithTokenSize sets the range of pi's chunking: each delta is between minTokens and
// maxTokens "tokens" of 4 runes, the size drawn from a generator seeded by [WithSeed] and the
// call index, so the same script always gives the same deltas. The default is 3 to 5, pi's.
func WithTokenSize(minTokens, maxTokens int) Option {
	return func(c *config) { c.minTokens, c.maxTokens = minTokens, maxTokens }
}

// WithSeed changes the seed of the chunk-size generator; the default is 0.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithDelay paces the stream for demos: the provider pauses d before each delta.
func WithDelay(d time.Duration) Option { return func(c *config) { c.delay = d } }

// WithSleep replaces the pause used by delays, so tests of pacing never sleep. sleep must
// return early with an error when ctx is cancelled.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) { c.sleep = sleep }
}

// WithClock sets the clock that stamps messages, so transcripts can be deterministic.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// New returns a provider with an empty queue.
func New(opts ...Option) *Provider {
	cfg := config{
		model:     DefaultModel(),
		minTokens: 3,
		maxTokens: 5,
		sleep:     sleepContext,
		now:       time.Now,
	}
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.sleep == nil {
		cfg.sleep = sleepContext
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	cfg.minTokens = max(1, cfg.minTokens)
	cfg.maxTokens = max(cfg.minTokens, cfg.maxTokens)
	return &Provider{cfg: cfg, prompts: map[string]string{}}
}

// SetResponses replaces the queue with steps.
func (p *Provider) SetResponses(steps ...Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append([]Step(nil), steps...)
}

// AppendResponses adds steps to the end of the queue, for factories and tests that script
// the conversation as it goes.
func (p *Provider) AppendResponses(steps ...Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, steps...)
}

// PendingCount reports how many steps are still queued, so a test can check that the model
// was called exactly as often as scripted.
func (p *Provider) PendingCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.steps)
}

// CallCount reports how many times Stream has been called, including calls that found the
// queue empty.
func (p *Provider) CallCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// Requests returns copies of every request received, in call order, so tests can assert the
// context the model saw on each call even after the agent has moved on. Messages, content
// blocks and tool arguments are copied; tool-result details are shared.
func (p *Provider) Requests() []*core.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*core.Request(nil), p.requests...)
}

// Model returns the provider's model, to configure an agent with.
func (p *Provider) Model() core.Model { return p.cfg.model }

// call is what Stream takes from the queue when it is called.
type call struct {
	index int
	step  Step
	ok    bool
}

// Stream implements [core.Provider]. The step is taken from the queue when Stream is called
// (so calls consume steps in call order), and streamed when the sequence is iterated, which
// should happen once.
func (p *Provider) Stream(ctx context.Context, req *core.Request) iter.Seq[core.AssistantEvent] {
	c := p.take(req)
	return func(yield func(core.AssistantEvent) bool) {
		p.stream(ctx, req, c, yield)
	}
}

func (p *Provider) take(req *core.Request) call {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := call{index: p.calls}
	p.calls++
	p.requests = append(p.requests, cloneRequest(req))
	if len(p.steps) > 0 {
		c.step, c.ok = p.steps[0], true
		p.steps[0] = Step{} // drop references held by the backing array
		p.steps = p.steps[1:]
	}
	return c
}

// nextToolID returns the next deterministic tool-call id.
func (p *Provider) nextToolID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.toolIDs++
	return "call_" + strconv.Itoa(p.toolIDs)
}

func (p *Provider) stream(ctx context.Context, req *core.Request, c call, yield func(core.AssistantEvent) bool) {
	model := p.cfg.model
	if req.Model.ID != "" {
		model = req.Model
	}
	b := core.NewMessageBuilder(&model, p.cfg.now().UnixMilli(), yield)
	if !c.ok {
		b.SetUsage(p.estimateUsage(req, nil))
		b.Fail(&core.ProviderError{Kind: core.ErrorOther, Message: QueueEmptyMessage})
		return
	}
	step := c.step
	if step.Factory != nil {
		var err *core.ProviderError
		if step, err = resolve(ctx, c.step.Factory, req, c.index); err != nil {
			b.SetUsage(p.estimateUsage(req, nil))
			b.Fail(err)
			return
		}
	}
	blocks, err := p.prepare(step.Content)
	if err != nil {
		b.SetUsage(p.estimateUsage(req, nil))
		b.Fail(err)
		return
	}
	usage := p.estimateUsage(req, blocks)
	if step.Usage != nil {
		usage = *step.Usage
	}
	b.SetUsage(usage)
	b.Message().ResponseID = step.ResponseID
	s := newStreamer(ctx, b, &step, &p.cfg, uint64(c.index))
	s.run(blocks)
}

// resolve runs a step factory, turning a panic into a failed response: the provider contract
// forbids panics, and a bug in a test's factory should read as a failed call.
func resolve(ctx context.Context, f func(context.Context, *core.Request, int) Step, req *core.Request, index int) (step Step, failure *core.ProviderError) {
	defer func() {
		if r := recover(); r != nil {
			failure = &core.ProviderError{Kind: core.ErrorOther, Message: fmt.Sprintf("faux: step factory panicked: %v", r)}
		}
	}()
	return f(ctx, req, index), nil
}

// sleepContext is the default pause: a timer that gives way to cancellation.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

package mockhttp

// Faults is the part of a scripted response that every dialect plays alike: a captured
// stream to replay instead of the dialect's own events, the stream's pacing and faults, and
// an HTTP answer in place of a stream. Each dialect's Response embeds it, so in a script
// these fields stand at the response's top level; in Go they are set as
// Faults: mockhttp.Faults{...}.
type Faults struct {
	// SSE is a captured stream replayed event by event (faults and pacing still apply);
	// SSEFile names a file holding one, relative to the script, read when the script loads.
	SSE     string `json:"sse,omitempty"`
	SSEFile string `json:"sseFile,omitempty"`

	// KeepAlive is a comment line written before the first event.
	KeepAlive string `json:"keepAlive,omitempty"`
	// ChunkDelayMs pauses before every data event.
	ChunkDelayMs int `json:"chunkDelayMs,omitempty"`
	// ChunkIntervalUs, when positive, writes data event k (from 0) no earlier than k times
	// this many microseconds after the first: a steady rate, as a model streams tokens, that
	// a late event does not slow down (the next ones catch up) and that can be finer than
	// the timer's granularity on average.
	ChunkIntervalUs int `json:"chunkIntervalUs,omitempty"`
	// DropAfter closes the connection mid-stream after that many data events; StallAfter
	// sends nothing more after that many until the client goes away or the test releases
	// stalls; StallBeforeHeaders stalls before anything is sent.
	DropAfter          int  `json:"dropAfter,omitempty"`
	StallAfter         int  `json:"stallAfter,omitempty"`
	StallBeforeHeaders bool `json:"stallBeforeHeaders,omitempty"`
	// NoDone leaves out the dialect's end of stream ([DONE], message_stop, ...).
	NoDone bool `json:"noDone,omitempty"`

	// Status is an HTTP status: with the dialect's scripted error it answers with the
	// provider's error envelope, with Body that body, else (400 and up) an empty body.
	Status      int               `json:"status,omitempty"`
	RetryAfter  string            `json:"retryAfter,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Body        string            `json:"body,omitempty"`
	ContentType string            `json:"contentType,omitempty"`
}

// shared returns f. Each dialect's Response embeds Faults and so has this method too: it is
// how the server and the script loader reach a response's shared part (see [Faulted])
// without an accessor in every dialect.
func (f *Faults) shared() *Faults { return f }

// Faulted is satisfied by *R for a scripted response type R that embeds [Faults].
type Faulted[R any] interface {
	*R
	shared() *Faults
}

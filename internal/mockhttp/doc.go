// Package mockhttp is the machinery the scripted provider mocks (internal/mockopenai,
// internal/mockanthropic) share: the queue of scripted responses and the record of requests
// ([Recorder]), the streaming writer with its faults (stalls, drops, pacing, blocked-write
// detection: [Stream]), and the script file helpers. Each mock keeps only what is its
// provider's: the script's fields, the wire format of its stream, and its error body.
package mockhttp

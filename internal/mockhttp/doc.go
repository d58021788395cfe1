// Package mockhttp is the machinery the scripted provider mocks (internal/mockopenai,
// internal/mockanthropic, internal/mockgoogle) share: the queue of scripted responses and the
// record of requests ([Recorder]), the streaming writer with its faults (stalls, drops,
// pacing, blocked-write detection: [Stream]), the script and its file helpers ([Script],
// [LoadScript]), and a mock command's line and serve loop ([Command], [Loader]; the commands'
// shared tests are in commandtest). Each mock keeps only what is its provider's: the
// script's fields, the wire format of its stream, and its error body.
//
// Each mock's Response still declares the fault fields (keepAlive, stallAfter, status, ...)
// itself rather than embedding one struct: Go's composite literals cannot set an embedded
// struct's fields directly, and every fault table in the tests writes them.
package mockhttp

package shrink

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
)

// ReadSurvival reads the JSON report of a survival run (`arena survive
// --json`) from r for shrinking: what FromSurvival and CompleteSurvival read
// of it is kept (the config, the actions listed and their counts, how the
// run ended, and of the run's report its seed, clock, start and end); the
// rest, the run's lists of faults, checks and health, is read past one
// element at a time and not held. So a report is never held whole: a
// large one costs about what its actions take.
//
// The report must have its config, events and report objects. More actions
// listed than a report may list (engine.MaxListCap), or more landed faults
// than a scenario may have (scenario.MaxSteps), are refused as soon as they
// are read. Durations are read as in every arena report, so a NaN or an
// infinity is refused wherever a number is.
func ReadSurvival(r io.Reader) (*engine.SurvivalReport, error) {
	rep, err := readSurvival(json.NewDecoder(r))
	if err != nil {
		return nil, fmt.Errorf("survival report: %w", err)
	}
	return rep, nil
}

func readSurvival(dec *json.Decoder) (*engine.SurvivalReport, error) {
	if err := expectDelim(dec, '{', "an object"); err != nil {
		return nil, err
	}
	rep := &engine.SurvivalReport{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := token(dec)
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		seen[key] = true
		switch key {
		case "config":
			err = dec.Decode(&rep.Config)
		case "events":
			rep.Events, err = readEvents(dec)
		case "events_dropped":
			err = dec.Decode(&rep.Dropped)
		case "actions":
			err = dec.Decode(&rep.Actions)
		case "ending":
			err = dec.Decode(&rep.Ending)
		case "stopped":
			err = dec.Decode(&rep.Stopped)
		case "report":
			rep.Report, err = readRun(dec)
		default:
			err = skip(dec)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if _, err := token(dec); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the report")
	}
	for _, key := range []string{"config", "events", "report"} {
		if !seen[key] {
			return nil, fmt.Errorf("no %s", key)
		}
	}
	return rep, nil
}

// readEvents reads the list of actions one at a time, refusing more than a
// report lists or more landed faults than a scenario may have as soon as
// it reads them.
func readEvents(dec *json.Decoder) ([]engine.SurvivalEvent, error) {
	if tok, err := token(dec); err != nil || tok == nil {
		return nil, err // null: no actions
	} else if tok != json.Delim('[') {
		return nil, fmt.Errorf("want an array, got %v", tok)
	}
	var events []engine.SurvivalEvent
	landed := 0
	for dec.More() {
		if len(events) == engine.MaxListCap {
			return nil, fmt.Errorf("more than %d actions listed, more than a report lists", engine.MaxListCap)
		}
		var ev engine.SurvivalEvent
		if err := dec.Decode(&ev); err != nil {
			return nil, fmt.Errorf("[%d]: %w", len(events), err)
		}
		if ev.Success {
			if landed++; landed > scenario.MaxSteps {
				return nil, fmt.Errorf("more than %d faults landed, more than a scenario may have", scenario.MaxSteps)
			}
		}
		events = append(events, ev)
	}
	_, err := token(dec) // the closing bracket
	return events, err
}

// readRun reads the run's report: its seed, clock, start and end.
func readRun(dec *json.Decoder) (*engine.Report, error) {
	if err := expectDelim(dec, '{', "an object"); err != nil {
		return nil, err
	}
	run := &engine.Report{}
	for dec.More() {
		tok, err := token(dec)
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "seed":
			err = dec.Decode(&run.Seed)
		case "virtual":
			err = dec.Decode(&run.Virtual)
		case "clock":
			err = dec.Decode(&run.Clock)
		case "start":
			err = dec.Decode(&run.Start)
		case "end":
			err = dec.Decode(&run.End)
		default:
			err = skip(dec)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	_, err := token(dec) // the closing brace
	return run, err
}

// token reads the next token inside the report, where the input may not
// end.
func token(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

func expectDelim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := token(dec)
	switch {
	case err != nil:
		return err
	case tok == nil:
		return fmt.Errorf("want %s, got null", what)
	case tok != d:
		return fmt.Errorf("want %s, got %v", what, tok)
	}
	return nil
}

// skip reads past the next value: an array's elements or an object's
// members one at a time, so that a long list is never held whole.
func skip(dec *json.Decoder) error {
	tok, err := token(dec)
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar, read
	}
	for dec.More() {
		if d == '{' {
			if _, err := token(dec); err != nil { // the member's name
				return err
			}
		}
		if err := dec.Decode(&discard{}); err != nil {
			return err
		}
	}
	_, err = token(dec) // the closing bracket or brace
	return err
}

// discard is a JSON value decoded (and so checked) and dropped.
type discard struct{}

func (discard) UnmarshalJSON([]byte) error { return nil }

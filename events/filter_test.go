package events

import "testing"

func TestFilterMatch(t *testing.T) {
	e := Event{Stream: "arena", Type: "arena.action.executed", Sequence: 5}
	tests := []struct {
		name   string
		filter Filter
		want   bool
	}{
		{"zero filter", Filter{}, true},
		{"stream listed", Filter{Streams: []string{"agent", "arena"}}, true},
		{"stream not listed", Filter{Streams: []string{"agent"}}, false},
		{"exact type", Filter{Types: []string{"arena.action.executed"}}, true},
		{"other type", Filter{Types: []string{"arena.action.failed"}}, false},
		{"prefix", Filter{Types: []string{"arena.*"}}, true},
		{"longer prefix", Filter{Types: []string{"arena.action.*"}}, true},
		{"prefix of other family", Filter{Types: []string{"arena.fault.*"}}, false},
		{"prefix keeps its dot", Filter{Types: []string{"aren.*"}}, false},
		{"star without dot is literal", Filter{Types: []string{"arena*"}}, false},
		{"any type listed", Filter{Types: []string{"x", "arena.*"}}, true},
		{"type and stream both needed", Filter{Streams: []string{"agent"}, Types: []string{"arena.*"}}, false},
		{"after FromSequence", Filter{FromSequence: 4}, true},
		{"at FromSequence", Filter{FromSequence: 5}, false},
		{"before FromSequence", Filter{FromSequence: 9}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.filter.Match(e); got != tt.want {
				t.Errorf("%+v.Match(%+v) = %v, want %v", tt.filter, e, got, tt.want)
			}
		})
	}
}

func TestFilterMatchPrefixDoesNotMatchFamilyName(t *testing.T) {
	f := Filter{Types: []string{"arena.*"}}
	for typ, want := range map[string]bool{"arena": false, "arenas.x": false, "arena.": true, "arena.x.y": true} {
		if got := f.Match(Event{Type: typ, Sequence: 1}); got != want {
			t.Errorf("Match(type %q) = %v, want %v", typ, got, want)
		}
	}
}

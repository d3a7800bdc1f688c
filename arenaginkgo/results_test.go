package arenaginkgo_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/ares-arena/arena/arenaginkgo"
)

func TestResults(t *testing.T) {
	report := types.Report{SpecReports: types.SpecReports{
		{LeafNodeText: "no arena entries", State: types.SpecStatePassed},
		{ContainerHierarchyTexts: []string{"cluster"}, LeafNodeText: "scores", LeafNodeLabels: []string{"chaos"}, State: types.SpecStateFailed,
			ReportEntries: types.ReportEntries{
				{Name: "arena.score", Value: types.WrapEntryValue(97.6)},
				{Name: "arena.grade", Value: types.WrapEntryValue("A+")},
				{Name: "screenshot", Value: types.WrapEntryValue("not arena's")},
			}},
	}}
	got := arenaginkgo.Results(report)
	if len(got) != 1 || got[0].Spec != "cluster scores" || got[0].State != types.SpecStateFailed ||
		strings.Join(got[0].Labels, ",") != "chaos" || len(got[0].Entries) != 2 ||
		got[0].Entries["arena.score"] != "97.6" || got[0].Entries["arena.grade"] != "A+" {
		t.Errorf("Results = %+v", got)
	}
}

func TestReadResultsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := arenaginkgo.ReadResults(filepath.Join(dir, "missing.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"not": "a list"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := arenaginkgo.ReadResults(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("bad JSON: %v", err)
	}
}

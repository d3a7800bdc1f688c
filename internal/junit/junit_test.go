package junit

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestWrite(t *testing.T) {
	s := Suite{Name: "s", Time: Seconds(1500 * time.Millisecond), Properties: []Property{{Name: "seed", Value: "7"}}, SystemOut: "text"}
	s.Add(Case{Name: "ok", Classname: "c", Time: Seconds(0)})
	s.Add(Case{Name: "skip", Classname: "c", Time: Seconds(0), Skipped: &Message{Message: "not reached"}})
	s.Add(Gate("c", "min_grade", false, "grade F is below B", "B", "F"))
	s.Add(Gate("c", "run", true, "", "completed", "completed"))
	var b strings.Builder
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="arena" tests="4" failures="1" skipped="1" time="1.500">
  <testsuite name="s" tests="4" failures="1" skipped="1" time="1.500">
    <properties>
      <property name="seed" value="7"></property>
    </properties>
    <testcase name="ok" classname="c" time="0.000"></testcase>
    <testcase name="skip" classname="c" time="0.000">
      <skipped message="not reached"></skipped>
    </testcase>
    <testcase name="gate min_grade" classname="c" time="0.000">
      <failure message="grade F is below B" type="gate">want B, got F</failure>
    </testcase>
    <testcase name="gate run" classname="c" time="0.000"></testcase>
    <system-out>text</system-out>
  </testsuite>
</testsuites>
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Write (-want +got):\n%s", diff)
	}
}

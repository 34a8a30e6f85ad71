package resulttest_test

import (
	"context"
	"testing"

	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/resulttest"
)

func TestMemory(t *testing.T) {
	resulttest.Run(t, resulttest.Harness{
		New: func(t testing.TB, q result.Quota) result.Store { return result.NewMemory(q) },
	})
}

// Broken stores fail the checks that catch what they break.
func TestBroken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func(q result.Quota) result.Store
		fails []string
	}{
		{"no quota", func(q result.Quota) result.Store {
			return noQuota{result.NewMemory(result.Quota{Total: 1 << 40, PerPrincipal: 1 << 40}), q}
		},
			[]string{"QuotaPerPrincipal", "QuotaTotal", "TooLarge", "ConcurrentPuts", "Evicted"}},
		{"first segment only", func(q result.Quota) result.Store { return firstOnly{result.NewMemory(q)} }, []string{"Segments", "TwoInstances"}},
		{"keeps expired", func(q result.Quota) result.Store { return keepsExpired{result.NewMemory(q)} }, []string{"Expiry", "Bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := resulttest.Harness{New: func(t testing.TB, q result.Quota) result.Store { return tc.store(q) }}
			for _, c := range resulttest.Cases() {
				err := c.Check(t, h)
				want := false
				for _, f := range tc.fails {
					want = want || f == c.Name
				}
				if want && err == nil {
					t.Errorf("%s passes", c.Name)
				}
				if !want && err != nil {
					t.Errorf("%s fails: %v", c.Name, err)
				}
			}
		})
	}
}

type noQuota struct {
	*result.Memory
	q result.Quota
}

func (s noQuota) Quota() result.Quota { return s.q.WithDefaults() }

type firstOnly struct{ *result.Memory }

func (s firstOnly) Segments(ctx context.Context, id, node string, from result.Pos, n int) ([]result.Segment, error) {
	segs, err := s.Memory.Segments(ctx, id, node, from, n)
	return segs[:min(len(segs), 1)], err
}

type keepsExpired struct{ *result.Memory }

func (s keepsExpired) Put(ctx context.Context, sn *result.Snapshot) error {
	sn2 := *sn
	sn2.Created = sn.Created.Add(-2 * sn.Expires.Sub(sn.Created)) // nothing looks expired
	return s.Memory.Put(ctx, &sn2)
}

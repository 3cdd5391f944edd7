package twin_test

import (
	"testing"

	"github.com/metaforge/metaforge/twin"
)

func TestGeometryStashIsABoundedLRU(t *testing.T) {
	s := twin.NewGeometryStash(2)
	s.Put("s1", "a", []byte("A"))
	s.Put("s1", "b", []byte("B"))
	if got, ok := s.Get("s1", "a"); !ok || string(got) != "A" {
		t.Fatalf("a = %q %v", got, ok)
	}
	s.Put("s2", "a", []byte("C")) // evicts s1/b, the least recently used
	if _, ok := s.Get("s1", "b"); ok {
		t.Error("s1/b survived past the bound")
	}
	if got, ok := s.Get("s1", "a"); !ok || string(got) != "A" {
		t.Errorf("s1/a = %q %v, want kept (used recently)", got, ok)
	}
	if got, _ := s.Get("s2", "a"); string(got) != "C" {
		t.Errorf("the same obj_id in another session is another export: %q", got)
	}
	s.Put("s1", "a", []byte("A2"))
	if got, _ := s.Get("s1", "a"); string(got) != "A2" {
		t.Errorf("a re-export replaces the stashed bytes: %q", got)
	}
}

package twin_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

func TestBlobStoreIsContentAddressed(t *testing.T) {
	bs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("ISO-10303-21;\nHEADER;\nENDSEC;\n")
	a, err := bs.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	// sha256 of the bytes above, computed independently with sha256sum.
	const want = "sha256:00be350eb42ad2268ef21884be49be410f8c3dc6352b3358c4d2fadeb3c08467"
	if a.Key != want || a.Key != "sha256:"+a.SHA256 || a.Bytes != len(data) {
		t.Fatalf("blob = %+v", a)
	}
	b, _ := bs.Put(data)
	if b != a {
		t.Fatalf("the same bytes got another key: %+v vs %+v", b, a)
	}
	got, err := bs.Get(a.Key)
	if err != nil || string(got) != string(data) {
		t.Fatalf("Get = %q %v", got, err)
	}
	if _, err := bs.Get("sha256:" + "ff" + a.SHA256[2:]); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("unknown key = %v, want ErrNotFound", err)
	}
	if _, err := bs.Get("md5:abc"); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("malformed key = %v, want ErrInvalid", err)
	}
	// A blob whose bytes changed on disk is reported, not served.
	path := filepath.Join(bs.Dir(), "sha256", a.SHA256[:2], a.SHA256[2:])
	if err := os.WriteFile(path, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Get(a.Key); err == nil {
		t.Error("a corrupt blob was served")
	}
}

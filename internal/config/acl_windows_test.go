//go:build windows

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The fallback secrets file is readable by the user alone: a protected DACL with
// one entry, the current user's.
func TestSecretsFileHasOwnerOnlyACL(t *testing.T) {
	dir := t.TempDir()
	s := OpenSecrets(dir, nil)
	if err := s.Set(SecretMerchant, "s3cret-value"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, SecretsFile)
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	ctl, _, err := sd.Control()
	if err != nil {
		t.Fatal(err)
	}
	if ctl&windows.SE_DACL_PROTECTED == 0 {
		t.Fatal("the DACL inherits from the folder")
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("no DACL: %v", err)
	}
	if dacl.AceCount != 1 {
		t.Fatalf("%d entries in the DACL, want the user's alone", dacl.AceCount)
	}
	var ace *windows.ACCESS_ALLOWED_ACE
	if err := windows.GetAce(dacl, 0, &ace); err != nil {
		t.Fatal(err)
	}
	me, err := currentUserSID()
	if err != nil {
		t.Fatal(err)
	}
	if sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart)); !sid.Equals(me) {
		t.Fatalf("the entry is for %s, want %s", sid, me)
	}
	if got, err := s.Get(SecretMerchant); err != nil || got != "s3cret-value" {
		t.Fatalf("read back %q, %v", got, err)
	}
}

// A secrets file that Everyone may read is refused with a sentence.
func TestSecretsFileReadableByEveryoneRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SecretsFile)
	if err := os.WriteFile(path, []byte(`{"merchant-secret":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;WD)") // Everyone: full access
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, _ := sd.DACL()
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		t.Fatal(err)
	}
	_, err = OpenSecrets(dir, nil).Get(SecretMerchant)
	if err == nil || !strings.Contains(err.Error(), "not only by this user") {
		t.Fatalf("err = %v, want the file refused", err)
	}
}

//go:build windows

package config

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no file modes: a file's access is its DACL. The data directory's
// private files (config.json, the fallback secrets file) get a protected DACL that
// grants full access to the user running Galla and to no one else, inheriting
// nothing from the folder (DESIGN.md section 5). SYSTEM and the Administrators
// group keep what Windows gives them regardless (backup, the owner's rights).

// currentUserSID is the SID of the user this process runs as.
func currentUserSID() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("config: the current user cannot be found: %w", err)
	}
	return u.User.Sid, nil
}

// makePrivate gives path a protected DACL granting full access to the current
// user only.
func makePrivate(path string) error {
	sid, err := currentUserSID()
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;" + sid.String() + ")")
	if err != nil {
		return fmt.Errorf("config: a private access list cannot be made: %w", err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("config: a private access list cannot be made: %w", err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("the file %s cannot be made readable by this user only: %w", path, err)
	}
	return nil
}

// trusted are the SIDs besides the user that may appear in a private file's DACL:
// SYSTEM and the local Administrators group, which Windows lets in anyway.
var trusted = []string{"S-1-5-18", "S-1-5-32-544"}

// checkPrivate refuses a file whose DACL lets in anyone but the current user,
// SYSTEM and the Administrators: another user of the counter PC could read the
// secrets in it.
func checkPrivate(path string) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil // a file that cannot be inspected is checked when it is read
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return nil
	}
	me, err := currentUserSID()
	if err != nil {
		return err
	}
	if dacl == nil {
		return fmt.Errorf("the file %s can be read by every user of this computer; open Galla's Settings and save the credentials again", path)
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return nil
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			continue // deny entries only take access away
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if sid.Equals(me) || isTrusted(sid) {
			continue
		}
		return fmt.Errorf("the file %s can be read by %s, not only by this user; open Galla's Settings and save the credentials again", path, sid.String())
	}
	return nil
}

func isTrusted(sid *windows.SID) bool {
	for _, s := range trusted {
		if sid.String() == s {
			return true
		}
	}
	return false
}

#!/usr/bin/env bash
# Signs, packs and notarises the macOS build of Galla (on a Mac, with Xcode's tools):
#   scripts/package-macos.sh Galla.app VERSION OUTDIR
# Writes OUTDIR/Galla-VERSION-macos.zip (the .app) and OUTDIR/Galla-VERSION-macos.dmg
# (the .app beside a link to /Applications). Signing takes its certificate from
# the environment (the release workflow's repository secrets):
#   MACOS_CERTIFICATE_P12 (base64 of a Developer ID Application .p12),
#   MACOS_CERTIFICATE_PASSWORD, MACOS_SIGN_IDENTITY ("Developer ID Application: …")
# and notarisation its Apple account: APPLE_ID, APPLE_TEAM_ID, APPLE_APP_PASSWORD.
# Where they are absent, that step is skipped with a line saying so, and the
# packages are built unsigned (Gatekeeper then asks the user to allow Galla).
set -euo pipefail
app=$1 version=$2 out=$3
[ -d "$app" ] || { echo "package-macos: $app is not a directory (run fyne package -os darwin first)"; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
keychain=$work/galla-sign.keychain-db
cleanup() {
	[ -f "$keychain" ] && security delete-keychain "$keychain" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

signed=0
if [ -n "${MACOS_CERTIFICATE_P12:-}" ] && [ -n "${MACOS_CERTIFICATE_PASSWORD:-}" ] && [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
	pass=$(openssl rand -hex 16)
	printf '%s' "$MACOS_CERTIFICATE_P12" | base64 --decode >"$work/cert.p12"
	security create-keychain -p "$pass" "$keychain"
	security set-keychain-settings -lut 3600 "$keychain"
	security unlock-keychain -p "$pass" "$keychain"
	security import "$work/cert.p12" -k "$keychain" -P "$MACOS_CERTIFICATE_PASSWORD" -T /usr/bin/codesign >/dev/null
	security set-key-partition-list -S apple-tool:,apple: -s -k "$pass" "$keychain" >/dev/null
	security list-keychains -d user -s "$keychain" $(security list-keychains -d user | tr -d '"')
	codesign --force --deep --options runtime --timestamp --sign "$MACOS_SIGN_IDENTITY" "$app"
	codesign --verify --deep --strict "$app"
	signed=1
	echo "package-macos: Galla.app signed as $MACOS_SIGN_IDENTITY"
else
	echo "package-macos: signing skipped: the secrets MACOS_CERTIFICATE_P12, MACOS_CERTIFICATE_PASSWORD and MACOS_SIGN_IDENTITY are not all set"
fi

ditto -c -k --keepParent "$app" "$out/Galla-$version-macos.zip"
mkdir -p "$work/dmg"
cp -R "$app" "$work/dmg/"
ln -s /Applications "$work/dmg/Applications"
dmg=$out/Galla-$version-macos.dmg
hdiutil create -volname "Galla $version" -srcfolder "$work/dmg" -ov -format UDZO "$dmg" >/dev/null
[ "$signed" = 1 ] && codesign --force --timestamp --sign "$MACOS_SIGN_IDENTITY" "$dmg"

if [ "$signed" = 1 ] && [ -n "${APPLE_ID:-}" ] && [ -n "${APPLE_TEAM_ID:-}" ] && [ -n "${APPLE_APP_PASSWORD:-}" ]; then
	xcrun notarytool submit "$dmg" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" --password "$APPLE_APP_PASSWORD" --wait
	xcrun stapler staple "$dmg"
	echo "package-macos: the .dmg is notarised and stapled"
else
	echo "package-macos: notarisation skipped: it needs a signed build and the secrets APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD"
fi
ls -l "$out/Galla-$version-macos.zip" "$dmg"

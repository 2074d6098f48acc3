; The Windows installer of Galla, built on Debian with its NSIS (makensis) around
; the mingw-w64 build of Galla.exe (make package-windows):
;   makensis -DVERSION=0.1.0 -DBUILD=1 -DEXE=path\Galla.exe -DICON=galla.ico -DOUTFILE=setup.exe galla.nsi
; It installs Galla.exe under Program Files, a Start-menu entry and an
; uninstaller listed in Apps & features. It never touches a user's data: the
; journal, its backups and the configuration live in %LOCALAPPDATA%\Galla (or,
; from an earlier Galla, %APPDATA%\galla), which the uninstaller leaves in place.

; A 64-bit installer, like Galla itself (Debian's NSIS ships the amd64 stubs).
Target amd64-unicode
SetCompressor /SOLID lzma
!include "MUI2.nsh"
!include "x64.nsh"

!ifndef VERSION
  !error "VERSION is not defined: makensis -DVERSION=x.y.z"
!endif
!ifndef BUILD
  !define BUILD 0
!endif

!define APP "Galla"
!define PUBLISHER "Galla"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Galla"

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\${APP}"
InstallDirRegKey HKLM "Software\${APP}" "InstallDir"
RequestExecutionLevel admin
BrandingText "${APP} ${VERSION}"

; The version the installer file carries (Properties > Details, and what
; make package-windows checks).
VIProductVersion "${VERSION}.${BUILD}"
VIFileVersion "${VERSION}.${BUILD}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "FileDescription" "${APP} ${VERSION} installer"
VIAddVersionKey "LegalCopyright" "${PUBLISHER}"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_FINISHPAGE_RUN "$INSTDIR\Galla.exe"
!define MUI_FINISHPAGE_TEXT "Galla ${VERSION} is installed. Each Windows user's journal and settings are kept in %LOCALAPPDATA%\Galla; installing a newer Galla over this one keeps them, and Galla copies the journal to its backups folder before it upgrades it."
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!define MUI_UNCONFIRMPAGE_TEXT_TOP "Galla will be removed from this computer. The journal, its backups and the settings in each user's %LOCALAPPDATA%\Galla are kept: a later install finds them again."
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "Galla needs 64-bit Windows." /SD IDOK
    Abort
  ${EndIf}
  SetRegView 64
FunctionEnd

Function un.onInit
  SetRegView 64
FunctionEnd

Section "Galla" SecMain
  SectionIn RO
  SetShellVarContext all
  SetOutPath "$INSTDIR"
  File "/oname=Galla.exe" "${EXE}"
  WriteUninstaller "$INSTDIR\Uninstall Galla.exe"
  CreateShortcut "$SMPROGRAMS\Galla.lnk" "$INSTDIR\Galla.exe" "" "$INSTDIR\Galla.exe" 0
  WriteRegStr HKLM "Software\${APP}" "InstallDir" "$INSTDIR"
  WriteRegStr HKLM "Software\${APP}" "Version" "${VERSION}"
  WriteRegStr HKLM "${UNINSTKEY}" "DisplayName" "${APP}"
  WriteRegStr HKLM "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINSTKEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKLM "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\Galla.exe"
  WriteRegStr HKLM "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINSTKEY}" "UninstallString" '"$INSTDIR\Uninstall Galla.exe"'
  WriteRegStr HKLM "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\Uninstall Galla.exe" /S'
  WriteRegDWORD HKLM "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINSTKEY}" "NoRepair" 1
SectionEnd

; The program only: nothing under %LOCALAPPDATA% or %APPDATA% is removed.
Section "Uninstall"
  SetShellVarContext all
  Delete "$SMPROGRAMS\Galla.lnk"
  Delete "$INSTDIR\Galla.exe"
  Delete "$INSTDIR\Uninstall Galla.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINSTKEY}"
  DeleteRegKey HKLM "Software\${APP}"
SectionEnd

@echo off
rem desk: the Treasury Desk command line, run by the app's own runtime (same version, same data directory).
set "APP=%~dp0..\..\Treasury Desk.exe"
if not exist "%APP%" (
  echo desk: cannot find the Treasury Desk app next to this launcher 1>&2
  exit /b 127
)
"%APP%" --desk-cli %*
exit /b %ERRORLEVEL%

#!/usr/bin/env bash
# Runs a command with a real, unlocked Secret Service of its own: a fresh D-Bus session and a
# gnome-keyring whose data folder is a temporary directory removed afterwards. The dashboard's
# tests, its end-to-end run and its benchmark use it, so no test touches the user's keyring.
#   tests/support/with-keyring.sh COMMAND [ARG...]
set -euo pipefail
keyring_home=$(mktemp -d)
trap 'rm -rf "$keyring_home"' EXIT
# The exit status of the command is the script's (dbus-run-session passes it on).
XDG_DATA_HOME="$keyring_home" dbus-run-session -- sh -c \
    'echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' keyring "$@"

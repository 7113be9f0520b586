#!/usr/bin/env bash
# Runs the WebDriver test files in LANES lanes side by side. Each lane has an X display of its
# own (xvfb-run, each lane searching for a free one from its own number) and a D-Bus session
# and Secret Service of its own (with-keyring.sh), so the apps of two lanes never meet: the
# single-instance hand-over, notifications and the keyring are all per session. The lanes take
# the next file from one queue, in the order given (slowest first), so they end close together.
# Each lane's output is printed whole once it ended.
#   tests/e2e/lanes.sh LANES FILE...
set -uo pipefail
lanes=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$@" >"$work/queue"
pids=()
for lane in $(seq 1 "$lanes"); do
    E2E_QUEUE="$work/queue" "$here/../support/with-keyring.sh" \
        xvfb-run -a -n $((100 + 10 * lane)) -s "-screen 0 1440x900x24" "$here/run.sh" \
        >"$work/lane-$lane.log" 2>&1 &
    pids+=("$!")
done
status=0
for index in "${!pids[@]}"; do
    lane=$((index + 1))
    wait "${pids[$index]}" || status=1
    echo "=== end-to-end lane $lane of $lanes"
    cat "$work/lane-$lane.log"
done
exit $status

#!/bin/sh
# Runs the WebDriver test files one after another (one app at a time on the display): the files
# named, or with E2E_QUEUE set, the files taken one at a time from that queue (a file of paths,
# one per line, shared with the other lanes of tests/e2e/lanes.sh) until it is empty.
# WebKitGTK's web process can die on a loaded machine: the driver then deletes the session
# ("session deleted because of page crash or hang") and every later test of the file fails
# for want of a window. That is the engine going away, not an assertion of ours, so a file
# that ends that way runs once more, said loudly; any other failure fails the run as it is.
# A file that runs past FILE_LIMIT seconds is stopped and fails: a hang costs minutes, not the
# whole CI budget.
FILE_LIMIT=${E2E_FILE_LIMIT_SECONDS:-600}
status=0

run_file() {
  file=$1
  log=$(mktemp)
  timeout -k 10 "$FILE_LIMIT" node --test "$file" >"$log" 2>&1
  code=$?
  cat "$log"
  [ "$code" -eq 124 ] && echo "!!! $file ran past ${FILE_LIMIT} s and was stopped" >&2
  if [ "$code" -ne 0 ] && grep -q "page crash or hang" "$log"; then
    echo "!!! $file: WebKit's web process died (page crash or hang); running the file once more" >&2
    timeout -k 10 "$FILE_LIMIT" node --test "$file" >"$log" 2>&1
    code=$?
    cat "$log"
  fi
  rm -f "$log"
  if [ "$code" -ne 0 ]; then
    echo "!!! $file failed" >&2
    status=1
  fi
}

# The queue's first path, taken out of it under a lock (nothing once the queue is empty).
next_in_queue() {
  flock "$E2E_QUEUE.lock" sh -c 'head -n 1 "$1" && sed -i 1d "$1"' next "$E2E_QUEUE"
}

if [ -n "${E2E_QUEUE:-}" ]; then
  while file=$(next_in_queue) && [ -n "$file" ]; do
    run_file "$file"
  done
else
  for file in "$@"; do
    run_file "$file"
  done
fi
exit $status

#!/usr/bin/env bash
# Unpacks each .deb into a temporary root (dpkg-deb -x, nothing installed on the machine) and
# starts what it holds: the service must answer /healthz and /readyz, the dashboard's window
# must stay up under Xvfb.
#   tests/package/smoke.sh SERVICE.deb DASHBOARD.deb
set -euo pipefail

service_deb=$1
dashboard_deb=$2
work=$(mktemp -d)
pids=()
# Process groups started with setsid: xvfb-run, the Xvfb display it starts and the dashboard
# all stop with their group (killing the dashboard alone left Xvfb running).
groups=()
cleanup() {
    for group in "${groups[@]}"; do kill -TERM -- "-$group" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 1
    for group in "${groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "package smoke test: $*" >&2
    exit 1
}

# Both install side by side: different package names, no file in common.
[ "$(dpkg-deb -f "$service_deb" Package)" != "$(dpkg-deb -f "$dashboard_deb" Package)" ] \
    || fail "the service's and the dashboard's packages have the same name"
common=$(comm -12 <(dpkg-deb -c "$service_deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||' | sort) \
    <(dpkg-deb -c "$dashboard_deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||' | sort))
[ -z "$common" ] || fail "both packages install $common"

# --- the service -------------------------------------------------------------------------
root="$work/service"
dpkg-deb -x "$service_deb" "$root"
dpkg-deb -e "$service_deb" "$work/service-control"
for path in usr/bin/subscriber-server etc/subscriber-data/server.env; do
    [ -e "$root/$path" ] || fail "$service_deb lacks /$path"
done
unit=$(find "$root" -name subscriber-data.service | head -n1)
[ -n "$unit" ] || fail "$service_deb has no systemd unit"
grep -q '^User=subscriber-data' "$unit" || fail "the unit does not run as subscriber-data"
grep -q '^EnvironmentFile=/etc/subscriber-data/server.env' "$unit" || fail "the unit reads no environment file"
grep -q '^LimitNOFILE=65536' "$unit" || fail "the unit leaves the open-file limit at the default (streams need room)"
grep -q 'adduser --system' "$work/service-control/postinst" || fail "postinst creates no user"
grep -q 'etc/subscriber-data/server.env' "$work/service-control/conffiles" || fail "server.env is not a conffile"

# The installed configuration, with the database and port moved into the temporary root.
(
    set -a
    # shellcheck disable=SC1091
    . "$root/etc/subscriber-data/server.env"
    set +a
    export SUBSCRIBER_LISTEN=127.0.0.1:0 SUBSCRIBER_DATABASE="$work/server.sqlite3" SUBSCRIBER_DIRECTORY_SIZE=2000
    exec "$root/usr/bin/subscriber-server"
) >"$work/service.log" 2>&1 &
pids+=($!)
address=""
for _ in $(seq 1 600); do
    address=$(grep -o 'listening on http://[0-9.:]*' "$work/service.log" | head -n1 | sed 's|listening on http://||' || true)
    [ -n "$address" ] && break
    kill -0 "${pids[0]}" 2>/dev/null || { cat "$work/service.log" >&2; fail "the service exited"; }
    sleep 0.2
done
[ -n "$address" ] || { cat "$work/service.log" >&2; fail "the service did not start"; }
curl -fsS "http://$address/healthz" | grep -q '"ok"' || fail "/healthz did not answer ok"
curl -fsS "http://$address/readyz" | grep -q '"ready"' || fail "/readyz did not answer ready"
head -n1 "$work/service.log" | python3 -c 'import json,sys; json.loads(sys.stdin.readline())' \
    || fail "the packaged configuration does not log JSON"
echo "service package: $(basename "$service_deb") answers /readyz on $address"

# --- the dashboard -----------------------------------------------------------------------
root="$work/dashboard"
dpkg-deb -x "$dashboard_deb" "$root"
binary=$(find "$root/usr/bin" -type f -perm -u+x | head -n1)
[ -n "$binary" ] || fail "$dashboard_deb has no program in /usr/bin"
desktop=$(find "$root/usr/share/applications" -name '*.desktop' | head -n1)
[ -n "$desktop" ] || fail "$dashboard_deb has no .desktop entry"
# The desktop entry registers the subscriber-data:// scheme and hands the link to the program.
grep -q '^MimeType=.*x-scheme-handler/subscriber-data' "$desktop" || fail "the .desktop entry does not register subscriber-data://"
grep -q '^Exec=.* %u' "$desktop" || fail "the .desktop entry does not pass the link (%u)"
mkdir -p "$work/home"
# Two starts on one display: the first stays up; the second, with a link, hands it to the first
# and exits 0. Whatever happens, the script stops the first, so xvfb-run and its display end.
cat >"$work/two-starts.sh" <<'SCRIPT'
#!/usr/bin/env bash
binary=$1 log=$2
"$binary" >"$log" 2>&1 &
first=$!
trap 'kill -TERM $first 2>/dev/null; wait $first 2>/dev/null' EXIT
sleep 8
kill -0 "$first" 2>/dev/null || { echo "the dashboard exited"; exit 1; }
timeout 30 "$binary" "subscriber-data://card/1" >>"$log.second" 2>&1
code=$?
[ "$code" = 0 ] || { echo "a second start with a link exited $code"; exit 1; }
sleep 1
kill -0 "$first" 2>/dev/null || { echo "the first start did not stay"; exit 1; }
SCRIPT
# In a process group of its own, which the cleanup ends should the script itself hang.
HOME="$work/home" XDG_DATA_HOME="$work/home/data" XDG_CONFIG_HOME="$work/home/config" \
    setsid xvfb-run -a -s "-screen 0 1280x820x24" bash "$work/two-starts.sh" "$binary" "$work/dashboard.log" \
    >"$work/two-starts.log" 2>&1 &
groups+=($!)
wait "${groups[-1]}" || { cat "$work/two-starts.log" "$work/dashboard.log" "$work/dashboard.log.second" >&2 2>/dev/null; fail "$(tail -n1 "$work/two-starts.log")"; }
echo "dashboard package: $(basename "$dashboard_deb") keeps its window open under Xvfb; a second start hands its link over and exits 0"

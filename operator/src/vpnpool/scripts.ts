/**
 * The scripts an OpenVPN server pod runs, shipped in the pool's server ConfigMap (the image has
 * the programs, the operator the logic: what runs is always the operator's version). POSIX sh,
 * curl, jq and nft (images/openvpn), and Debian's Node for the service checker (checker.ts, bundled).
 * The pod runs as root in its own network namespace with NET_ADMIN: it makes its tun device, routes
 * and nftables rules.
 */
import { ARENA_MSS } from '../catalogue/transports.ts';

/** Starts the sync loop and OpenVPN; the pod ends when OpenVPN does. */
const ENTRYPOINT = String.raw`#!/bin/sh
# Exploit Grid VPN server: routes its client slice to the arena (arena0) without NAT.
set -eu
etc=${'${'}EG_ETC:-/etc/exploit-grid}
run=${'${'}EG_RUN:-/run}
export EG_ETC="$etc" EG_RUN="$run"
here=$etc/server
mkdir -p "$run/exploit-grid/sessions" "$run/openvpn"
# A pod's network namespace starts with its node's forwarding setting (on wherever Kubernetes
# runs) and /proc/sys is read-only in an unprivileged container: set it only when it is off.
if [ "$(cat /proc/sys/net/ipv4/ip_forward)" != 1 ] && ! sysctl -qw net.ipv4.ip_forward=1; then
  echo "IPv4 forwarding is off in this pod and cannot be turned on here: allow the sysctl net.ipv4.ip_forward for the pod or turn it on on the node" >&2
  exit 1
fi
# The API's internal Service, by address (DNAT needs one).
api_host=$(echo "$API_INTERNAL_URL" | sed -E 's#^[a-z]+://([^:/]+).*#\1#')
api_port=$(echo "$API_INTERNAL_URL" | sed -nE 's#^[a-z]+://[^:/]+:([0-9]+).*#\1#p')
api_port=${'${'}api_port:-80}
api_ip=$(getent ahostsv4 "$api_host" | awk 'NR==1 { print $1 }')
[ -n "$api_ip" ] || { echo "cannot resolve $api_host" >&2; exit 1; }
# From the arena only the access pairs pass, and the agents' port 80; the pod itself answers
# nothing there (its OpenVPN listens on every address).
nft -f - <<NFT
table inet eg
delete table inet eg
table inet eg {
  set access {
    type ipv4_addr . ipv4_addr
    flags timeout
  }
  # The attack windows' pairs (attacker's VPN address . box), a subset of access: the router
  # witnesses their TCP flows for the referee (docs/detection.md): when each became established
  # (its handshake's SYN-ACK, once: kept 2 minutes, enough for the API to have heard of it, and
  # never told again, so a connection older than the window is never dated into it) and whether
  # the box still sends on it (refreshed by every packet from the box, gone 15 s after its last or
  # at a FIN or RST).
  set windows {
    type ipv4_addr . ipv4_addr
    flags timeout
  }
  set opened {
    type ipv4_addr . inet_service . ipv4_addr . inet_service
    flags dynamic,timeout
    timeout 2m
    size 262144
  }
  set active {
    type ipv4_addr . inet_service . ipv4_addr . inet_service
    flags dynamic,timeout
    timeout 15s
    size 262144
  }
  set ended {
    type ipv4_addr . inet_service . ipv4_addr . inet_service
    flags dynamic,timeout
    timeout 2m
    size 262144
  }
  # Connections per attacker address (what one player can make the routers and agents track).
  set attackers {
    type ipv4_addr
    flags dynamic
    size 65536
  }
  # Handshakes per attacker address, a second: one who opens and closes connections without end
  # must not fill the sets above (20 a second, 200 at once; a port scan's closed ports cost none).
  set handshakes {
    type ipv4_addr
    flags dynamic,timeout
    timeout 1m
    size 65536
  }
  # The API's service checks this server makes (checker.cjs): box . box port . source port → the
  # attacker's VPN address, the source the check is renamed to (the box sees its attacker). Local
  # connections, so never in the witnessed sets above, which only the forward chain fills.
  map probes {
    type ipv4_addr . inet_service . inet_service : ipv4_addr
    flags timeout
    size 65536
  }
  chain input {
    type filter hook input priority 0; policy accept;
    iifname "arena0" ct state established,related accept
    iifname "arena0" drop
  }
  chain forward {
    type filter hook forward priority 0; policy drop;
    # Into the arena every packet with the same TTL and every SYN with at most the same segment size and no
    # timestamps (whose clock is one per pair of addresses before the renaming), forwarded (players) or the
    # router's own (the checks): a box cannot tell the checks by any of them.
    oifname "arena0" ip ttl set 64
    oifname "arena0" tcp flags syn tcp option maxseg size > ${ARENA_MSS} tcp option maxseg size set ${ARENA_MSS}
    oifname "arena0" tcp flags syn reset tcp option timestamp
    iifname "tun0" oifname "arena0" meta l4proto tcp ct state new ip saddr . ip daddr @windows add @attackers { ip saddr ct count over 4096 } drop
    iifname "arena0" oifname "tun0" meta l4proto tcp tcp flags & (syn | ack) == syn | ack ip daddr . ip saddr @windows update @handshakes { ip daddr limit rate over 20/second burst 200 packets } drop
    iifname "tun0" oifname "arena0" meta l4proto tcp tcp flags & (syn | ack) == syn | ack ip saddr . ip daddr @windows update @handshakes { ip saddr limit rate over 20/second burst 200 packets } drop
    iifname "tun0" oifname "arena0" meta l4proto tcp tcp flags & (syn | ack) == syn | ack ct state established ip saddr . ip daddr @windows add @opened { ip saddr . tcp sport . ip daddr . tcp dport }
    iifname "arena0" oifname "tun0" meta l4proto tcp tcp flags & (syn | ack) == syn | ack ct state established ip daddr . ip saddr @windows add @opened { ip daddr . tcp dport . ip saddr . tcp sport }
    iifname "tun0" oifname "arena0" meta l4proto tcp tcp flags & (fin | rst) != 0 ip saddr . ip daddr @windows add @ended { ip saddr . tcp sport . ip daddr . tcp dport } delete @active { ip saddr . tcp sport . ip daddr . tcp dport }
    iifname "arena0" oifname "tun0" meta l4proto tcp tcp flags & (fin | rst) != 0 ip daddr . ip saddr @windows add @ended { ip daddr . tcp dport . ip saddr . tcp sport } delete @active { ip daddr . tcp dport . ip saddr . tcp sport }
    iifname "arena0" oifname "tun0" meta l4proto tcp ct state established ip daddr . ip saddr @windows ip daddr . tcp dport . ip saddr . tcp sport != @ended update @active { ip daddr . tcp dport . ip saddr . tcp sport }
    iifname "tun0" oifname "arena0" ip saddr . ip daddr @access accept
    iifname "arena0" oifname "tun0" ip daddr . ip saddr @access accept
    iifname "arena0" ip daddr $api_ip tcp dport $api_port ct status dnat accept
    oifname "arena0" ct status dnat ct state established accept
  }
  chain output {
    type filter hook output priority 0; policy accept;
    oifname "arena0" ip ttl set 64
    oifname "arena0" tcp flags syn tcp option maxseg size > ${ARENA_MSS} tcp option maxseg size set ${ARENA_MSS}
    oifname "arena0" tcp flags syn reset tcp option timestamp
  }
  chain prerouting {
    type nat hook prerouting priority -100;
    iifname "arena0" ip daddr $ROUTER_ADDRESS tcp dport 80 dnat ip to $api_ip:$api_port
  }
  chain postrouting {
    type nat hook postrouting priority 100;
    ip daddr $api_ip tcp dport $api_port ct status dnat masquerade
    ip saddr $ROUTER_ADDRESS oifname "arena0" meta l4proto tcp snat ip to ip daddr . tcp dport . tcp sport map @probes
  }
}
NFT
/bin/sh "$here/access-sync.sh" --loop &
/bin/sh "$here/access-sync.sh" --flows &
# The API's service checks during attacks, from this router (Debian's nodejs in the image); started again
# should it ever end (the readiness probe looks for it).
( while true; do node "$here/checker.cjs"; echo "the service checker ended; starting it again" >&2; sleep 1; done ) &
exec openvpn --config "$here/$SERVER_NAME.conf" --cd "$run/openvpn"
`;

/** OpenVPN's client-connect: asks the API; records the session (user id → VPN address). */
const CLIENT_CONNECT = String.raw`#!/bin/sh
# Environment from OpenVPN: common_name (the player's user id), ifconfig_pool_remote_ip, untrusted_ip.
set -eu
scripts=${'${'}SCRIPTS_DIR:-${'${'}EG_ETC:-/etc/exploit-grid}/server}
sessions=${'${'}SESSIONS_DIR:-${'${'}EG_RUN:-/run}/exploit-grid/sessions}
token_file=${'${'}HOOK_TOKEN_FILE:-${'${'}EG_ETC:-/etc/exploit-grid}/pki/hook-token}
case "$common_name" in *[!0-9a-f-]*|'') exit 1 ;; esac
# Where the client connects from, for that player's eyes only; left out when OpenVPN does not say.
real=${'${'}untrusted_ip:-${'${'}untrusted_ip6:-}}
case "$real" in *[!0-9A-Fa-f.:]*) real='' ;; esac
extra=''
[ -z "$real" ] || extra=$(printf ',"realAddress":"%s"' "$real")
body=$(printf '{"protocol":"%s","commonName":"%s","vpnAddress":"%s","server":"%s"%s}'   "$PROTOCOL" "$common_name" "$ifconfig_pool_remote_ip" "$SERVER_NAME" "$extra")
answer=$(curl -sS --max-time 5 -o - -w '
%{http_code}' -X POST   -H "Authorization: Bearer $(cat "$token_file")"   -H 'Content-Type: application/json' --data "$body"   "$API_INTERNAL_URL/internal/vpn/connect") || exit 1
[ "$(echo "$answer" | tail -n 1)" = 200 ] || exit 1
[ "$(echo "$answer" | head -n 1 | jq -r .allow)" = true ] || exit 1
echo "$ifconfig_pool_remote_ip" > "$sessions/$common_name"
/bin/sh "$scripts/access-sync.sh" --once
`;

/** OpenVPN's client-disconnect: forgets the session, tells the API. */
const CLIENT_DISCONNECT = String.raw`#!/bin/sh
set -u
scripts=${'${'}SCRIPTS_DIR:-${'${'}EG_ETC:-/etc/exploit-grid}/server}
sessions=${'${'}SESSIONS_DIR:-${'${'}EG_RUN:-/run}/exploit-grid/sessions}
token_file=${'${'}HOOK_TOKEN_FILE:-${'${'}EG_ETC:-/etc/exploit-grid}/pki/hook-token}
case "$common_name" in *[!0-9a-f-]*|'') exit 0 ;; esac
rm -f "$sessions/$common_name"
/bin/sh "$scripts/access-sync.sh" --once
body=$(printf '{"protocol":"%s","commonName":"%s","vpnAddress":"%s","server":"%s"}'   "$PROTOCOL" "$common_name" "$ifconfig_pool_remote_ip" "$SERVER_NAME")
curl -sS --max-time 5 -o /dev/null -X POST   -H "Authorization: Bearer $(cat "$token_file")"   -H 'Content-Type: application/json' --data "$body"   "$API_INTERNAL_URL/internal/vpn/disconnect" || true
exit 0
`;

/**
 * Makes the nftables set `access` what access.json and this server's sessions say: for each
 * connected player, their VPN address with each of their boxes; for each open attack window,
 * its source with its box, timing out at the window's end (the kernel closes it even if nothing
 * else runs), in `windows` too (the pairs whose flows the router witnesses). Applied only when
 * it changed; `--loop` looks every 2 seconds. `--flows` reports the witnessed flows to the API
 * every 2 seconds (docs/detection.md).
 */
const ACCESS_SYNC = String.raw`#!/bin/sh
set -eu
access=${'${'}ACCESS_FILE:-${'${'}EG_ETC:-/etc/exploit-grid}/access/access.json}
sessions=${'${'}SESSIONS_DIR:-${'${'}EG_RUN:-/run}/exploit-grid/sessions}
state=${'${'}STATE_DIR:-${'${'}EG_RUN:-/run}/exploit-grid}/access.applied
lock=${'${'}STATE_DIR:-${'${'}EG_RUN:-/run}/exploit-grid}/access.lock
nft=${'${'}NFT:-nft}
token_file=${'${'}HOOK_TOKEN_FILE:-${'${'}EG_ETC:-/etc/exploit-grid}/pki/hook-token}
# This server's whole session list to the API (an API that restarted learns who is connected;
# a disconnect it missed ends there).
report_sessions() {
  for file in "$sessions"/*; do
    [ -f "$file" ] || continue
    printf '%s %s\n' "$(basename "$file")" "$(cat "$file")"
  done | jq -R -s --arg protocol "$PROTOCOL" --arg server "$SERVER_NAME" \
    '{protocol: $protocol, server: $server, sessions: [split("\n")[] | select(length > 0) | split(" ")
      | {commonName: .[0], vpnAddress: .[1]}]}' |
    curl -sS --max-time 5 -o /dev/null -f -X POST -H "Authorization: Bearer $(cat "$token_file")" \
      -H 'Content-Type: application/json' --data @- "$API_INTERNAL_URL/internal/vpn/sessions"
}
sync_once() {
  now=$(date +%s)
  windows=$(
    jq -r --argjson now "$now" '.windows[] | (.until | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601) as $close
      | select($close > $now) | "\(.source) . \(.box) timeout \($close - $now)s"' "$access" | sort -u | paste -sd, -
  )
  elements=$(
    {
      for file in "$sessions"/*; do
        [ -f "$file" ] || continue
        user=$(basename "$file")
        vpn=$(cat "$file")
        jq -r --arg user "$user" --arg vpn "$vpn" '.owners[$user] // [] | .[] | "\($vpn) . \(.)"' "$access"
      done
      [ -n "$windows" ] && echo "$windows" | tr , '\n'
    } | sort -u | paste -sd, -
  )
  # Compare without the timeouts (they shrink every second; the windows did not change).
  key=$(echo "$elements" | sed -E 's/ timeout [0-9]+s//g')
  [ -f "$state" ] && [ "$(cat "$state")" = "$key" ] && return 0
  {
    printf 'flush set inet eg access\nflush set inet eg windows\n'
    [ -n "$elements" ] && printf 'add element inet eg access { %s }\n' "$elements"
    [ -n "$windows" ] && printf 'add element inet eg windows { %s }\n' "$windows"
    true
  } | $nft -f -
  echo "$key" > "$state"
}
# The attack windows' TCP flows the router carried (sets opened and active), to the API: each
# with how long ago it became established and, while the box still sends on it, how long since
# it last did (the sets count down from their timeouts; seconds).
report_flows() {
  { $nft -j list set inet eg opened; $nft -j list set inet eg active; } | jq -s -c \
    --arg server "$SERVER_NAME" --arg router "${'${'}ROUTER_ADDRESS:-}" '
    def elems: [.nftables[] | select(.set) | .set as $set | ($set.elem // [])[]
      | {key: (.elem.val.concat | map(tostring) | join(" ")), left: .elem.expires, timeout: $set.timeout}];
    (.[0] | elems) as $opened | ((.[1] | elems) | map({(.key): (.timeout - .left)}) | add // {}) as $idle
    | {server: $server, router: $router, flows: [$opened[] | (.key | split(" ")) as $k
      | {client: $k[0], clientPort: ($k[1] | tonumber), box: $k[2], boxPort: ($k[3] | tonumber),
         openedSecondsAgo: (.timeout - .left), idleSeconds: $idle[.key]}]}' |
    curl -sS --max-time 5 -o /dev/null -f -X POST -H "Authorization: Bearer $(cat "$token_file")" \
      -H 'Content-Type: application/json' --data @- "$API_INTERNAL_URL/internal/vpn/flows"
}
# One at a time: the loop and the hooks.
locked() { (flock 9 && sync_once) 9>"$lock"; }
if [ "${'${'}1:-}" = --flows ]; then
  while true; do
    report_flows || echo "flow report failed" >&2
    sleep 2
  done
elif [ "${'${'}1:-}" = --loop ]; then
  round=0
  while true; do
    locked || echo "access sync failed" >&2
    # Every 16 seconds, the sessions to the API.
    [ $((round % 8)) -eq 0 ] && { report_sessions || echo "session report failed" >&2; }
    round=$((round + 1))
    sleep 2
  done
elif [ "${'${'}1:-}" = --report ]; then
  report_sessions
elif [ "${'${'}1:-}" = --report-flows ]; then
  report_flows
else
  rm -f "$state" # the hooks apply whatever the last state was
  locked
fi
`;

/** Ready while OpenVPN runs with its tun device and the access table is in place. */
const READY = String.raw`#!/bin/sh
ip link show tun0 >/dev/null 2>&1 && nft list set inet eg access >/dev/null 2>&1 &&
  pgrep -f "${'${'}EG_ETC:-/etc/exploit-grid}/server/checker.cjs" >/dev/null
`;

export const SCRIPTS: Record<string, string> = {
  'entrypoint.sh': ENTRYPOINT,
  'client-connect.sh': CLIENT_CONNECT,
  'client-disconnect.sh': CLIENT_DISCONNECT,
  'access-sync.sh': ACCESS_SYNC,
  'ready.sh': READY,
};

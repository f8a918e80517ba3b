# Shared helpers for the Interop scenarios. Source it, then call `iop_init NAME`.
#
# - RTC_H264: the rtc-h264 binary (default: `swift build` in the package, then its bin path).
# - KEEP=1 keeps the scratch directory (printed at exit) for inspection.
# - Every background process goes through `iop_bg`, which records its PID; the EXIT trap
#   kills exactly those PIDs (never by name) and removes the scratch directory.
# - Key material is generated here and only ever written to files of mode 0600; never printed.

set -euo pipefail

IOP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IOP_PIDS=()
IOP_NAME="interop"
IOP_DIR=""

# Prints a message prefixed with the scenario name.
iop_log() { printf '[%s] %s\n' "$IOP_NAME" "$*"; }

# Fails the scenario with a clear message (exit 1; the trap cleans up).
iop_fail() { printf '[%s] FAIL: %s\n' "$IOP_NAME" "$*" >&2; exit 1; }

# Kills every process started through iop_bg, by PID, then removes the scratch directory.
iop_cleanup() {
    local status=$?
    local pid
    for pid in "${IOP_PIDS[@]:-}"; do
        [ -n "$pid" ] || continue
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
        fi
    done
    for pid in "${IOP_PIDS[@]:-}"; do
        [ -n "$pid" ] || continue
        local i
        for i in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ -n "$IOP_DIR" ] && [ -d "$IOP_DIR" ]; then
        if [ "${KEEP:-0}" = "1" ] || [ "$status" -ne 0 -a "${KEEP_ON_FAIL:-0}" = "1" ]; then
            printf '[%s] scratch directory kept: %s\n' "$IOP_NAME" "$IOP_DIR" >&2
        else
            rm -rf "$IOP_DIR"
        fi
    fi
    exit "$status"
}

# Sets up the scenario: name, scratch directory, EXIT trap, the rtc-h264 binary in $RTC.
# - Parameters: $1 the scenario name.
iop_init() {
    IOP_NAME="$1"
    umask 077
    IOP_DIR="$(mktemp -d "${TMPDIR:-/tmp}/interop-$1.XXXXXX")"
    trap iop_cleanup EXIT
    trap 'exit 130' INT TERM
    if [ -z "${RTC_H264:-}" ]; then
        iop_log "RTC_H264 not set: building with swift build"
        (cd "$IOP_ROOT" && swift build >/dev/null) || iop_fail "swift build failed in $IOP_ROOT"
        RTC_H264="$(cd "$IOP_ROOT" && swift build --show-bin-path)/rtc-h264"
        export RTC_H264
    fi
    [ -x "$RTC_H264" ] || iop_fail "rtc-h264 binary not found or not executable: $RTC_H264"
    RTC="$RTC_H264"
}

# Fails unless every named tool is on PATH.
# - Parameters: tool names; the Debian package to install is given after a colon (tool:package).
iop_require() {
    local spec tool pkg
    for spec in "$@"; do
        tool="${spec%%:*}"; pkg="${spec#*:}"
        command -v "$tool" >/dev/null 2>&1 || iop_fail "$tool not found: apt-get install $pkg"
    done
}

# Starts a command in the background with stdout/stderr to $IOP_DIR/LOG.{out,err}; records its PID.
# - Parameters: $1 a log name, then the command. Sets IOP_LAST_PID.
iop_bg() {
    local log="$1"; shift
    "$@" >"$IOP_DIR/$log.out" 2>"$IOP_DIR/$log.err" &
    IOP_LAST_PID=$!
    IOP_PIDS+=("$IOP_LAST_PID")
}

# Waits for a background process, with a timeout; returns its exit status (124 on timeout, after killing it).
# - Parameters: $1 PID, $2 timeout in seconds.
iop_wait() {
    local pid="$1" limit="$2" waited=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$waited" -ge $((limit * 10)) ]; then
            kill -TERM "$pid" 2>/dev/null || true
            sleep 0.5
            kill -KILL "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            return 124
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    local rc=0
    wait "$pid" || rc=$?
    return "$rc"
}

# Waits until a UDP port is bound on 127.0.0.1 (by anyone), up to $2 seconds.
# - Parameters: $1 port, $2 timeout in seconds.
iop_wait_udp() {
    local port="$1" limit="$2" waited=0
    until ss -Huln "sport = :$port" 2>/dev/null | grep -q .; do
        [ "$waited" -lt $((limit * 10)) ] || iop_fail "nothing bound UDP port $port within ${limit}s"
        sleep 0.1
        waited=$((waited + 1))
    done
}

# Fails if a UDP port is already bound (so a stale process cannot steal the scenario's packets).
# - Parameters: port numbers.
iop_port_free() {
    local port
    for port in "$@"; do
        if ss -Huln "sport = :$port" 2>/dev/null | grep -q .; then
            iop_fail "UDP port $port already in use on this machine"
        fi
    done
}

# Writes a fresh random SRTP master key+salt (30 bytes, AES_CM_128) as base64 to a mode-0600 file.
# - Parameters: $1 the file.
iop_new_key() {
    head -c 30 /dev/urandom | base64 -w0 >"$1"
    chmod 600 "$1"
}

# Prints the hex form of a base64 key file (for GStreamer's srtp-key caps); never logged.
# - Parameters: $1 the key file.
iop_key_hex() {
    base64 -d <"$1" | od -An -v -tx1 | tr -d ' \n'
}

# Writes the per-frame MD5s (one per line, in order) of decoding a file with ffmpeg.
# - Parameters: $1 input file (Annex-B .h264, .y4m, ...), $2 output list. Extra ffmpeg input options in IOP_FFIN.
iop_framemd5() {
    local in="$1" out="$2"
    ffmpeg -nostdin -hide_banner -loglevel error ${IOP_FFIN:-} -i "$in" -f framemd5 - 2>"$out.err" \
        | awk -F', *' '!/^#/ && NF >= 6 { print $6 }' >"$out" \
        || iop_fail "ffmpeg could not decode $in: $(head -c 400 "$out.err")"
}

# Compares two MD5 lists; fails with the first differing frame.
# - Parameters: $1 expected list, $2 actual list, $3 label for the message.
iop_compare_md5() {
    local expected="$1" actual="$2" label="$3"
    local ne na
    ne=$(wc -l <"$expected"); na=$(wc -l <"$actual")
    [ "$ne" -gt 0 ] || iop_fail "$label: the reference decode has no frames"
    if [ "$ne" -ne "$na" ]; then
        iop_fail "$label: frame count differs: reference $ne, peer $na"
    fi
    local first
    first=$(paste -d' ' "$expected" "$actual" | awk '$1 != $2 { print NR; exit }')
    if [ -n "$first" ]; then
        iop_fail "$label: frame $first differs: reference $(sed -n "${first}p" "$expected"), peer $(sed -n "${first}p" "$actual")"
    fi
    iop_log "$label: $na frames, all per-frame MD5s equal"
}

# Writes the SDP our receiver is given for a foreign SRTP sender: RTP/SAVP, payload type 96 H264/90000,
# packetization-mode=1, RTCP on port+1, a=crypto AES_CM_128_HMAC_SHA1_80 with the key file's key; no
# sprop-parameter-sets (the peer sends SPS/PPS in band).
# - Parameters: $1 RTP port, $2 key file, $3 output SDP file, $4 session name.
iop_write_receiver_sdp() {
    local port="$1" keyfile="$2" out="$3" name="$4"
    {
        printf 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=%s\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n' "$name"
        printf 'm=video %d RTP/SAVP 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\n' "$port"
        printf 'a=rtcp:%d\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:%s\r\na=sendonly\r\n' $((port + 1)) "$(cat "$keyfile")"
    } >"$out"
}

# Prints the JSON number field $2 of the one-line JSON object in file $1 (rtc-h264 receive --json).
iop_json_field() { grep -o "\"$2\":[0-9.e+-]*" "$1" | head -1 | cut -d: -f2; }

# Checks rtc-h264 receive's JSON summary: framesDecoded equals the expected count and nothing was lost,
# undecodable or unauthenticated.
# - Parameters: $1 summary file, $2 expected frames, $3 label.
iop_check_receive_summary() {
    local summary="$1" frames="$2" label="$3"
    local decoded dropped errors srtp lost
    decoded=$(iop_json_field "$summary" framesDecoded); dropped=$(iop_json_field "$summary" framesDropped)
    errors=$(iop_json_field "$summary" decodeErrors); srtp=$(iop_json_field "$summary" srtpUnprotectFailures)
    lost=$(iop_json_field "$summary" packetsLost)
    [ -n "$decoded" ] || iop_fail "$label: no JSON summary from rtc-h264 receive: $(head -c 400 "$summary")"
    [ "$decoded" = "$frames" ] \
        || iop_fail "$label: rtc-h264 receive decoded $decoded of $frames frames (framesDropped=$dropped, decodeErrors=$errors, framesReceived=$(iop_json_field "$summary" framesReceived), pliCount=$(iop_json_field "$summary" pliCount))"
    [ "$errors" = 0 ] && [ "$srtp" = 0 ] && [ "$lost" = 0 ] && [ "$dropped" = 0 ] \
        || iop_fail "$label: framesDropped=$dropped decodeErrors=$errors srtpUnprotectFailures=$srtp packetsLost=$lost (all must be 0)"
}

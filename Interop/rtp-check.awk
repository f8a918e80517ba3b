# Checks an RFC 6184 H.264 RTP stream from tshark's field dissection (scenario 3).
#
# Input: one line per packet, fields separated by '|' (occurrence=a, aggregator=','):
#   frame.number | udp.length | rtp.seq | rtp.timestamp | rtp.marker | h264.nal_unit_hdr | h264.nal_unit_type
#   | h264.start.bit | h264.end.bit | _ws.malformed
# Variables (-v): mtu (IP-level bytes), mode (packetization mode 0 or 1), fps, frames (expected count).
# Prints what it checked; exits 1 with "FAIL ..." lines on any violation.
#
# RFC 6184 numbers: NAL unit types 1-23 are single NAL unit packets (section 5.6), 24 is STAP-A
# (section 5.7.1), 28 is FU-A (section 5.8); 5 is an IDR slice, 7 SPS, 8 PPS (H.264 Table 7-1).
# The marker bit is set on the last packet of an access unit (section 5.1). A FU-A header must not have
# both the S and E bits set (section 5.8). IP-level size = UDP length (header included) + 20 (IPv4 header).

function fail(msg) { print "FAIL packet " $1 ": " msg; failures++ }

BEGIN {
    FS = "|"; failures = 0; packets = 0; aus = 0; idrs = 0; fus = 0; staps = 0; singles = 0
    fu_open = 0; prev_seq = -1; prev_ts = -1; prev_marker = 1; au_types = ""; steps = 0; step_sum = 0
    step_min = -1; step_max = 0; max_ip = 0
    ip_header = 20; single_max = 23; stap_a = 24; fu_a = 28; idr = 5; sps = 7; pps = 8
}

{
    packets++
    udp_len = $2 + 0; seq = $3 + 0; ts = $4 + 0; marker = $5 + 0; hdr = $6; fu_type = $7
    start = $8; end = $9
    if ($3 == "") { fail("not dissected as RTP"); next }
    if ($10 != "") fail("tshark marks it malformed")
    ip = udp_len + ip_header
    if (ip > max_ip) max_ip = ip
    if (ip > mtu) fail("IP datagram of " ip " bytes exceeds MTU " mtu)

    # Sequence numbers: continuous, wrapping at 2^16 (RFC 3550 section 5.1).
    if (prev_seq >= 0 && seq != (prev_seq + 1) % 65536) fail("sequence jumps from " prev_seq " to " seq)
    prev_seq = seq

    # Access units: the timestamp may change only right after a marker, and must change after one.
    if (prev_ts >= 0) {
        if (ts != prev_ts && !prev_marker) fail("timestamp changes from " prev_ts " to " ts " without a marker on the previous packet")
        if (ts == prev_ts && prev_marker) fail("marker set but the next packet keeps timestamp " ts)
        if (ts != prev_ts) {
            step = (ts - prev_ts + 4294967296) % 4294967296
            steps++; step_sum += step
            if (step_min < 0 || step < step_min) step_min = step
            if (step > step_max) step_max = step
            if (step == 0 || step > 2147483648) fail("timestamp goes backwards: " prev_ts " -> " ts)
        }
    }
    if (prev_ts < 0 || ts != prev_ts) au_types = ""
    prev_ts = ts

    # Payload structure.
    n = split(hdr, h, ",")
    type = h[1] + 0
    if (type == stap_a) {
        staps++
        if (mode == 0) fail("STAP-A in packetization mode 0")
        if (fu_open) fail("STAP-A inside an unfinished FU-A")
        stap_types = ""
        for (i = 2; i <= n; i++) { au_types = au_types " " h[i]; stap_types = stap_types " " h[i] }
        if (n < 3) fail("STAP-A with fewer than two NAL units")
    } else if (type == fu_a) {
        fus++
        if (mode == 0) fail("FU-A in packetization mode 0")
        if (start == "1" && end == "1") fail("FU-A with both S and E bits")
        if (start == "1") {
            if (fu_open) fail("FU-A start while a FU-A is open")
            fu_open = 1; fu_nal = fu_type; au_types = au_types " " fu_type
        } else {
            if (!fu_open) fail("FU-A continuation without a start")
            if (fu_type != fu_nal) fail("FU-A NAL type changes from " fu_nal " to " fu_type)
        }
        if (end == "1") fu_open = 0
    } else if (type >= 1 && type <= single_max) {
        singles++
        if (fu_open) fail("single NAL unit packet inside an unfinished FU-A")
        au_types = au_types " " type
    } else {
        fail("unexpected payload NAL type " type)
    }

    if (marker) {
        aus++
        if (fu_open) fail("marker set while a FU-A is unfinished")
        # Every IDR must be preceded, in its access unit, by an SPS and a PPS (in one STAP-A in mode 1).
        if (au_types ~ /(^| )5( |$)/) {
            idrs++
            before = au_types; sub(/ 5( .*)?$/, "", before)
            if (before !~ /(^| )7( |$)/ || before !~ /(^| )8( |$)/) fail("IDR access unit without SPS and PPS before it (NAL types:" au_types ")")
            if (mode == 1 && !(stap_types ~ /(^| )7( |$)/ && stap_types ~ /(^| )8( |$)/)) fail("mode 1 IDR whose SPS and PPS are not in a STAP-A")
        }
        stap_types = ""
    }
    prev_marker = marker
}

END {
    if (packets == 0) { print "FAIL: no RTP packets captured"; exit 1 }
    if (!prev_marker) { print "FAIL: the last packet has no marker"; failures++ }
    if (aus != frames) { print "FAIL: " aus " access units (markers), expected " frames; failures++ }
    if (idrs == 0) { print "FAIL: no IDR access unit"; failures++ }
    nominal = 90000 / fps
    mean = steps ? step_sum / steps : 0
    if (steps == 0 || mean < nominal * 0.9 || mean > nominal * 1.1) {
        printf "FAIL: mean timestamp step %.1f, expected %.1f +-10%%\n", mean, nominal; failures++
    }
    printf "checked %d packets, %d access units (%d IDR), %d single NAL, %d STAP-A, %d FU-A packets; " \
           "largest IP datagram %d (MTU %d); timestamp step mean %.1f (min %d, max %d; nominal %.1f)\n", \
           packets, aus, idrs, singles, staps, fus, max_ip, mtu, mean, step_min, step_max, nominal
    if (!failures) print "all hold: no malformed packet, sequence continuous, markers close access units, " \
                         "SPS+PPS before every IDR, FU-A start/end paired, every datagram within the MTU"
    exit failures ? 1 : 0
}

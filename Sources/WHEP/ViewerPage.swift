/// The viewer page served at `/`: an `RTCPeerConnection` with one recvonly video transceiver, its offer POSTed to
/// `/whep` at once and its candidates trickled as they are gathered (`PATCH` with the session's `ETag`, RFC 9725
/// section 4.3), the answer applied, the track played in a muted autoplaying `<video>`; a status line shows the
/// connection state, the decoded frame count and every error, and the session is DELETEd when the page goes away.
/// When ICE fails, or stays disconnected for 2 s, the page restarts ICE (`restartIce()`, the new credentials
/// `PATCH`ed with `If-Match: "*"`, the server's new ones applied to its answer; RFC 9725 section 4.4), retrying after
/// 1 s, doubling up to 30 s, until connected again.
///
/// Beside the picture (below it on a narrow screen) a statistics panel, refreshed once a second from the page's own
/// `getStats()`: resolution, decoded frames per second and received bitrate (from the `inbound-rtp` counters' deltas
/// over the last second), the round-trip time of the selected ICE candidate pair, packets lost, packets recovered by
/// retransmission and NACKs sent, freezes, jitter, the decoder, and a canvas graph of bitrate and RTT over the last
/// 60 s. Its glass-to-glass latency cell shows `—` until the frames' `requestVideoFrameCallback` metadata carry a
/// `captureTime` (Chromium sets it from the abs-capture-time header extension once it knows the round-trip time: the
/// page negotiates that extension and adds `rtcp-fb rrtr` to its offer, so that RTCP XR gives it one), then the mean
/// over the last second of the time of the callback less the capture time. Plain JavaScript and inline CSS, no external resource, relative URLs
/// only: the page works offline and over HTTPS alike.
///
/// Fragment parameters (never sent to the server in the URL): `#token=...` is sent as `Authorization: Bearer` when the
/// endpoint requires a token; `#report=URL` makes the page POST its `inbound-rtp` statistics as JSON to `URL` every
/// 500 ms and at every panel refresh (the interop tests read them there); `#restart=S` restarts ICE once, S seconds
/// after the first decoded frame (a check that restarts work). The reports carry the raw `getStats()` values of that poll
/// (`statsTimestamp`, `bytesReceived`, `framesPerSecond`, `roundTripTime`, ...), the page's ICE figures (`offerCandidates`
/// in the POSTed offer, `trickled` candidates PATCHed, `trickleError`, `iceRestarts`, `restartMs`, `restartError`), `panel` with exactly the numbers the
/// panel shows, and `panelWindow` with the `statsTimestamp` of the two polls the panel's rates were computed between.
enum ViewerPage {
    /// The HTML.
    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>rtc-h264 WHEP viewer</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style>
    body{font-family:sans-serif;margin:1em;background:#111;color:#eee}
    h1{font-size:1.4em;margin:0 0 .3em}
    #status{margin:.5em 0}.error{color:#f66}
    #layout{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
    #picture{flex:1 1 20em;min-width:0}
    video{display:block;width:100%;max-height:80vh;background:#000}
    #panel{flex:0 1 17em;min-width:14em;background:#1b1b1b;border:1px solid #333;border-radius:6px;padding:.6em;
      font-size:.9em;font-variant-numeric:tabular-nums}
    #panel table{border-collapse:collapse;width:100%}
    #panel th{text-align:left;font-weight:normal;color:#aaa;padding:.15em .5em .15em 0;white-space:nowrap}
    #panel td{text-align:right;padding:.15em 0;overflow-wrap:anywhere}
    #graph{display:block;width:100%;height:6em;margin-top:.5em;background:#000;border-radius:3px}
    .legend{font-size:.85em;color:#aaa;margin-top:.2em}.kbps{color:#6c6}.rtt{color:#fa4}
    @media (max-width:40em){#panel{flex-basis:100%}}
    </style></head>
    <body><h1>rtc-h264</h1>
    <div id="layout">
    <div id="picture"><video id="video" autoplay muted playsinline controls></video>
    <div id="status" role="status">connecting…</div></div>
    <aside id="panel" aria-label="Statistics"><table><tbody>
    <tr><th>Resolution</th><td id="resolution">—</td></tr>
    <tr><th>Frames per second</th><td id="fps">—</td></tr>
    <tr><th>Bitrate</th><td id="bitrate">—</td></tr>
    <tr><th>Round-trip time</th><td id="rtt">—</td></tr>
    <tr><th>Packets lost</th><td id="lost">—</td></tr>
    <tr><th>Packets recovered</th><td id="recovered">—</td></tr>
    <tr><th>NACKs sent</th><td id="nacks">—</td></tr>
    <tr><th>Freezes</th><td id="freezes">—</td></tr>
    <tr><th>Jitter</th><td id="jitter">—</td></tr>
    <tr><th>Glass-to-glass</th><td id="latency">—</td></tr>
    <tr><th>Decoder</th><td id="decoder">—</td></tr>
    </tbody></table>
    <canvas id="graph" role="img" aria-label="Bitrate and round-trip time over the last 60 seconds"></canvas>
    <div class="legend"><span class="kbps">■ bitrate</span> · <span class="rtt">■ RTT</span> · last 60 s</div>
    </aside></div>
    <script>
    "use strict";
    const params = new URLSearchParams(location.hash.slice(1));
    const token = params.get("token"), reportURL = params.get("report");
    const statusLine = document.getElementById("status");
    const video = document.getElementById("video");
    function show(text, isError) { statusLine.textContent = text; statusLine.className = isError ? "error" : ""; }
    function report(object) {
      if (reportURL) fetch(reportURL, {method: "POST", mode: "no-cors", body: JSON.stringify(object)}).catch(() => {});
    }
    // Glass-to-glass latency: the frames' capture times (absent until the sender sends abs-capture-time).
    let latencySum = 0, latencyFrames = 0;
    if ("requestVideoFrameCallback" in video) {
      const onFrame = (now, metadata) => {
        if (typeof metadata.captureTime === "number") { latencySum += now - metadata.captureTime; latencyFrames += 1; }
        video.requestVideoFrameCallback(onFrame);
      };
      video.requestVideoFrameCallback(onFrame);
    }
    // The panel: refreshed from one getStats() poll a second; rates over the time since the previous refresh.
    const panelRefreshMs = 1000, historyMs = 60000;
    let previousSample = null, panel = null, panelWindow = null;
    const history = [];
    function cell(id, text) { document.getElementById(id).textContent = text; }
    function round(value, digits) { const scale = Math.pow(10, digits); return Math.round(value * scale) / scale; }
    function refreshPanel(summary) {
      const sample = {t: summary.statsTimestamp, bytes: summary.bytesReceived, frames: summary.frames};
      const rates = previousSample !== null && sample.t > previousSample.t;
      const seconds = rates ? (sample.t - previousSample.t) / 1000 : 0;
      panel = {
        width: summary.width, height: summary.height,
        fps: rates ? round((sample.frames - previousSample.frames) / seconds, 1) : null,
        bitrateKbps: rates ? Math.round((sample.bytes - previousSample.bytes) * 8 / seconds / 1000) : null,
        rttMs: summary.roundTripTime === null ? null : round(summary.roundTripTime * 1000, 1),
        packetsLost: summary.packetsLost, packetsRecovered: summary.retransmittedPacketsReceived,
        nackCount: summary.nackCount, freezeCount: summary.freezeCount,
        freezesDurationS: round(summary.totalFreezesDuration, 1), jitterMs: round(summary.jitter * 1000, 1),
        latencyMs: latencyFrames > 0 ? Math.round(latencySum / latencyFrames) : null,
        decoder: summary.decoder || null,
      };
      panelWindow = {from: rates ? previousSample.t : null, to: sample.t};
      latencySum = 0; latencyFrames = 0;
      previousSample = sample;
      const dash = "—";
      cell("resolution", panel.width ? panel.width + " × " + panel.height : dash);
      cell("fps", panel.fps === null ? dash : panel.fps.toFixed(1));
      cell("bitrate", panel.bitrateKbps === null ? dash : panel.bitrateKbps + " kbit/s");
      cell("rtt", panel.rttMs === null ? dash : panel.rttMs.toFixed(1) + " ms");
      cell("lost", String(panel.packetsLost));
      cell("recovered", String(panel.packetsRecovered));
      cell("nacks", String(panel.nackCount));
      cell("freezes", panel.freezeCount + " (" + panel.freezesDurationS.toFixed(1) + " s)");
      cell("jitter", panel.jitterMs.toFixed(1) + " ms");
      cell("latency", panel.latencyMs === null ? dash : panel.latencyMs + " ms");
      cell("decoder", panel.decoder === null ? dash : panel.decoder);
      if (panel.bitrateKbps !== null) history.push({t: sample.t, kbps: panel.bitrateKbps, rtt: panel.rttMs});
      while (history.length > 0 && history[0].t < sample.t - historyMs) history.shift();
      drawGraph(sample.t);
    }
    function drawGraph(now) {
      const canvas = document.getElementById("graph"), ratio = window.devicePixelRatio || 1;
      const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
      const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
      if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
      const context = canvas.getContext("2d");
      context.clearRect(0, 0, width, height);
      const top = 14 * ratio, x = (t) => width - (now - t) / historyMs * width;
      const line = (key, color) => {
        const values = history.filter((p) => p[key] !== null).map((p) => p[key]);
        if (values.length === 0) return 0;
        const maximum = Math.max(1, ...values) * 1.1;
        context.strokeStyle = color; context.lineWidth = 1.5 * ratio; context.beginPath();
        let started = false;
        history.forEach((p) => {
          if (p[key] === null) return;
          const y = height - (p[key] / maximum) * (height - top);
          if (started) context.lineTo(x(p.t), y); else context.moveTo(x(p.t), y);
          started = true;
        });
        context.stroke();
        return Math.max(...values);
      };
      const kbps = line("kbps", "#6c6"), rtt = line("rtt", "#fa4");
      context.font = (10 * ratio) + "px sans-serif"; context.textBaseline = "top";
      context.fillStyle = "#6c6"; context.textAlign = "left"; context.fillText("max " + kbps + " kbit/s", 2, 1);
      context.fillStyle = "#fa4"; context.textAlign = "right"; context.fillText("max " + rtt + " ms", width - 2, 1);
    }
    async function main() {
      const pc = new RTCPeerConnection();
      const transceiver = pc.addTransceiver("video", {direction: "recvonly"});
      // Glass-to-glass latency needs the frames' capture times: abs-capture-time (Chromium negotiates it only when
      // asked) and the round-trip time, which a receive-only stream learns only from RTCP XR (RRTR answered with
      // DLRR, negotiated as rtcp-fb rrtr, which Chromium does not offer by itself: added to each offer).
      if (transceiver.getHeaderExtensionsToNegotiate) {
        const extensions = transceiver.getHeaderExtensionsToNegotiate();
        extensions.forEach((e) => {
          if (e.uri.endsWith("/abs-capture-time") || e.uri.endsWith("#dependency-descriptor-rtp-header-extension")) {
            e.direction = "recvonly";
          }
        });
        try { transceiver.setHeaderExtensionsToNegotiate(extensions); } catch (error) {}
      }
      const crlf = String.fromCharCode(13, 10);
      function withRRTR(offer) {
        const lines = [];
        for (const line of offer.sdp.split(crlf)) {
          lines.push(line);
          const h264 = line.match(new RegExp("^a=rtpmap:([0-9]+) H264/90000"));
          if (h264) lines.push("a=rtcp-fb:" + h264[1] + " rrtr");
        }
        return {type: "offer", sdp: lines.join(crlf)};
      }
      pc.ontrack = (event) => { video.srcObject = new MediaStream([event.track]); };
      let connectedMs = null, answeredMs = null, started = null;
      pc.onconnectionstatechange = () => {
        if (pc.connectionState === "connected" && connectedMs === null) connectedMs = performance.now() - started;
        if (pc.connectionState === "failed" || pc.connectionState === "closed") show("connection " + pc.connectionState, true);
      };
      // Trickle ICE (RFC 9725 4.3): the offer goes at once, the candidates follow in PATCHes with the session's ETag.
      const auth = token ? {"Authorization": "Bearer " + token} : {};
      let location = null, etag = null, pending = [], gathered = false, endSent = false, chain = Promise.resolve();
      let restarting = false, trickled = 0, iceRestarts = 0, restartError = null, offerCandidates = 0, restartMs = null;
      let trickleError = null, frames = 0, gatheredCandidates = 0;
      const iceLine = (sdp, name) => { const m = new RegExp("a=" + name + ":([^\\r\\n]+)").exec(sdp); return m ? m[1] : null; };
      function fragment(candidates, end) {
        const sdp = pc.localDescription.sdp, mid = pc.getTransceivers()[0].mid;
        let text = "a=ice-options:trickle\\r\\na=group:BUNDLE " + mid + "\\r\\nm=video 9 UDP/TLS/RTP/SAVPF 0\\r\\na=mid:" + mid +
          "\\r\\na=ice-ufrag:" + iceLine(sdp, "ice-ufrag") + "\\r\\na=ice-pwd:" + iceLine(sdp, "ice-pwd") + "\\r\\n";
        candidates.forEach((c) => { text += "a=" + c.candidate + "\\r\\n"; });
        return end ? text + "a=end-of-candidates\\r\\n" : text;
      }
      async function patch(body, ifMatch) {
        const headers = Object.assign({"Content-Type": "application/trickle-ice-sdpfrag", "If-Match": ifMatch}, auth);
        const response = await fetch(location, {method: "PATCH", headers: headers, body: body});
        etag = response.headers.get("ETag") || etag;
        return response;
      }
      async function sendCandidates() {
        if (!location || restarting) return;
        const ufrag = iceLine(pc.localDescription.sdp, "ice-ufrag");
        const candidates = pending.filter((c) => !c.usernameFragment || c.usernameFragment === ufrag);
        pending = [];
        const end = gathered && !endSent;
        if (candidates.length === 0 && !end) return;
        endSent = endSent || end;
        const response = await patch(fragment(candidates, end), etag);
        if (response.status === 204) trickled += candidates.length;
        else trickleError = "the server answered " + response.status + ": " + await response.text();
      }
      const trickle = () => { chain = chain.then(sendCandidates).catch((error) => { trickleError = String(error); }); };
      pc.onicecandidate = (event) => {
        if (event.candidate && event.candidate.candidate) { pending.push(event.candidate); gatheredCandidates += 1; }
        else if (!event.candidate) gathered = true;
        trickle();
      };
      // ICE restart (RFC 9725 4.4): new credentials PATCHed with If-Match: "*", the server's applied to its answer;
      // DTLS and the stream go on. On "failed", or "disconnected" for 2 s; retried with backoff (1 s doubling to 30 s).
      async function restart() {
        if (restarting || !location) return;
        restarting = true;
        const begun = performance.now();
        try {
          pc.restartIce();
          await pc.setLocalDescription(withRRTR(await pc.createOffer()));
          pending = []; gathered = false; endSent = false;
          const response = await patch(fragment([], false), "*");
          const text = await response.text();
          if (response.status !== 200) throw new Error("the server answered " + response.status + ": " + text);
          const ufrag = iceLine(text, "ice-ufrag"), pwd = iceLine(text, "ice-pwd");
          if (!ufrag || !pwd) throw new Error("the server's fragment has no credentials");
          const answer = pc.remoteDescription.sdp.replace(/a=ice-ufrag:[^\\r\\n]+/g, "a=ice-ufrag:" + ufrag)
            .replace(/a=ice-pwd:[^\\r\\n]+/g, "a=ice-pwd:" + pwd);
          await pc.setRemoteDescription({type: "answer", sdp: answer});
          iceRestarts += 1; restartError = null; restartMs = performance.now() - begun;
        } catch (error) {
          restartError = String(error);
          show("ICE restart failed: " + error, true);
        } finally {
          restarting = false;
          trickle();
        }
      }
      let restartDelay = 1000, restartTimer = null, disconnectTimer = null;
      function scheduleRestart() {
        if (restartTimer !== null) return;
        restartTimer = setTimeout(() => { restartTimer = null; restart(); }, restartDelay);
        restartDelay = Math.min(restartDelay * 2, 30000);
      }
      pc.oniceconnectionstatechange = () => {
        const state = pc.iceConnectionState;
        clearTimeout(disconnectTimer);
        if (state === "failed") scheduleRestart();
        if (state === "disconnected") {
          disconnectTimer = setTimeout(() => { if (pc.iceConnectionState === "disconnected") scheduleRestart(); }, 2000);
        }
        if (state === "connected" || state === "completed") restartDelay = 1000;
      };
      await pc.setLocalDescription(withRRTR(await pc.createOffer()));
      started = performance.now();
      const headers = Object.assign({"Content-Type": "application/sdp"}, auth);
      offerCandidates = (pc.localDescription.sdp.match(/\\r\\na=candidate:/g) || []).length;
      const response = await fetch("/whep", {method: "POST", headers: headers, body: pc.localDescription.sdp});
      const body = await response.text();
      if (response.status !== 201) throw new Error("WHEP server answered " + response.status + ": " + body);
      location = response.headers.get("Location");
      etag = response.headers.get("ETag");
      window.addEventListener("pagehide", () => {
        if (location) fetch(location, {method: "DELETE", headers: auth, keepalive: true});
      });
      answeredMs = performance.now() - started;
      await pc.setRemoteDescription({type: "answer", sdp: body});
      trickle();
      const restartAfter = Number(params.get("restart"));
      let firstFrameMs = null, lastReport = 0, lastPanel = -Infinity, framesAtRestart = null;
      // Every 50 ms until the first frame is decoded (its time is the join latency), then every 500 ms; the panel is
      // refreshed on the polls a second apart.
      const poll = async () => {
        const stats = await pc.getStats();
        const summary = {ice: pc.iceConnectionState, connection: pc.connectionState, location: location};
        let pairId = null, inbound = false;
        stats.forEach((s) => {
          if (s.type === "inbound-rtp" && s.kind === "video") {
            inbound = true;
            Object.assign(summary, {frames: s.framesDecoded || 0, framesReceived: s.framesReceived || 0,
              framesDropped: s.framesDropped || 0, keyFramesDecoded: s.keyFramesDecoded || 0,
              width: s.frameWidth || 0, height: s.frameHeight || 0, packetsReceived: s.packetsReceived || 0,
              packetsLost: s.packetsLost || 0, nackCount: s.nackCount || 0, pliCount: s.pliCount || 0,
              firCount: s.firCount || 0, decoder: s.decoderImplementation || "",
              statsTimestamp: s.timestamp, bytesReceived: s.bytesReceived || 0,
              framesPerSecond: s.framesPerSecond === undefined ? null : s.framesPerSecond,
              retransmittedPacketsReceived: s.retransmittedPacketsReceived || 0,
              freezeCount: s.freezeCount || 0, totalFreezesDuration: s.totalFreezesDuration || 0,
              jitter: s.jitter || 0});
          }
          if (s.type === "transport") {
            Object.assign(summary, {dtls: s.dtlsState, srtp: s.srtpCipher});
            pairId = s.selectedCandidatePairId || null;
          }
        });
        const pair = pairId ? stats.get(pairId) : null;
        summary.roundTripTime = pair && pair.currentRoundTripTime !== undefined ? pair.currentRoundTripTime : null;
        frames = summary.frames || 0;
        if (firstFrameMs === null && summary.frames > 0) {
          firstFrameMs = performance.now() - started;
          if (restartAfter > 0) {
            setTimeout(() => { framesAtRestart = frames; restart(); }, restartAfter * 1000);
          }
        }
        Object.assign(summary, {offerCandidates: offerCandidates, trickled: trickled, iceRestarts: iceRestarts,
          restartError: restartError, restartMs: restartMs, framesAtRestart: framesAtRestart, trickleError: trickleError,
          gatheredCandidates: gatheredCandidates, iceGathering: pc.iceGatheringState});
        if (transceiver.getNegotiatedHeaderExtensions) {
          summary.headerExtensions = transceiver.getNegotiatedHeaderExtensions()
            .filter((e) => e.direction !== "stopped").map((e) => e.uri);
        }
        summary.offerToFirstFrameMs = firstFrameMs;
        summary.offerToAnswerMs = answeredMs;
        summary.offerToConnectedMs = connectedMs;
        const now = performance.now();
        const refresh = inbound && now - lastPanel >= panelRefreshMs - 60;  // timers run a little late or early
        if (refresh) { lastPanel = now; refreshPanel(summary); }
        if (refresh || now - lastReport >= 500 || (firstFrameMs !== null && lastReport === 0)) {
          lastReport = now;
          show(pc.connectionState + (summary.frames !== undefined ? ", " + summary.frames + " frames decoded, " +
               summary.width + "x" + summary.height : ""), pc.connectionState === "failed");
          report(Object.assign(summary, {panel: panel, panelWindow: panelWindow}));
        }
        setTimeout(poll, firstFrameMs === null ? 50 : 500);
      };
      poll();
    }
    main().catch((error) => { show(String(error), true); report({error: String(error)}); });
    </script></body></html>
    """
}

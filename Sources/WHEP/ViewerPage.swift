/// The minimal viewer page served at `/`: an `RTCPeerConnection` with one recvonly video transceiver, its offer
/// POSTed to `/whep` once ICE gathering is complete (no trickle), the answer applied, the track played in a muted
/// autoplaying `<video>`; the page shows every error and the decoded frame count.
///
/// Fragment parameters (never sent to the server in the URL): `#token=...` is sent as `Authorization: Bearer` when the
/// endpoint requires a token; `#report=URL` makes the page POST its `inbound-rtp` statistics as JSON to `URL` every
/// 500 ms (the interop tests read them there).
enum ViewerPage {
    /// The HTML.
    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>rtc-h264 WHEP viewer</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style>body{font-family:sans-serif;margin:1em;background:#111;color:#eee}video{max-width:100%;background:#000}
    #status{margin:.5em 0}.error{color:#f66}</style></head>
    <body><h1>rtc-h264</h1><video id="video" autoplay muted playsinline controls></video>
    <div id="status">connecting…</div>
    <script>
    "use strict";
    const params = new URLSearchParams(location.hash.slice(1));
    const token = params.get("token"), reportURL = params.get("report");
    const statusLine = document.getElementById("status");
    function show(text, isError) { statusLine.textContent = text; statusLine.className = isError ? "error" : ""; }
    function report(object) {
      if (reportURL) fetch(reportURL, {method: "POST", mode: "no-cors", body: JSON.stringify(object)}).catch(() => {});
    }
    async function main() {
      const pc = new RTCPeerConnection();
      pc.addTransceiver("video", {direction: "recvonly"});
      pc.ontrack = (event) => { document.getElementById("video").srcObject = new MediaStream([event.track]); };
      let connectedMs = null, answeredMs = null, started = null;
      pc.onconnectionstatechange = () => {
        if (pc.connectionState === "connected" && connectedMs === null) connectedMs = performance.now() - started;
        if (pc.connectionState === "failed" || pc.connectionState === "closed") show("connection " + pc.connectionState, true);
      };
      await pc.setLocalDescription(await pc.createOffer());
      if (pc.iceGatheringState !== "complete") {
        await new Promise((resolve) => {
          pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") resolve(); };
          setTimeout(resolve, 3000);  // post what we have after 3 s
        });
      }
      started = performance.now();
      const headers = {"Content-Type": "application/sdp"};
      if (token) headers["Authorization"] = "Bearer " + token;
      const response = await fetch("/whep", {method: "POST", headers: headers, body: pc.localDescription.sdp});
      const body = await response.text();
      if (response.status !== 201) throw new Error("WHEP server answered " + response.status + ": " + body);
      const location = response.headers.get("Location");
      window.addEventListener("pagehide", () => {
        if (location) fetch(location, {method: "DELETE", headers: token ? {"Authorization": "Bearer " + token} : {}, keepalive: true});
      });
      answeredMs = performance.now() - started;
      await pc.setRemoteDescription({type: "answer", sdp: body});
      let firstFrameMs = null, lastReport = 0;
      // Every 50 ms until the first frame is decoded (its time is the join latency), then every 500 ms.
      const poll = async () => {
        const stats = await pc.getStats();
        const summary = {ice: pc.iceConnectionState, connection: pc.connectionState, location: location};
        stats.forEach((s) => {
          if (s.type === "inbound-rtp" && s.kind === "video") {
            Object.assign(summary, {frames: s.framesDecoded || 0, framesReceived: s.framesReceived || 0,
              framesDropped: s.framesDropped || 0, keyFramesDecoded: s.keyFramesDecoded || 0,
              width: s.frameWidth || 0, height: s.frameHeight || 0, packetsReceived: s.packetsReceived || 0,
              packetsLost: s.packetsLost || 0, nackCount: s.nackCount || 0, pliCount: s.pliCount || 0,
              firCount: s.firCount || 0, decoder: s.decoderImplementation || ""});
          }
          if (s.type === "transport") Object.assign(summary, {dtls: s.dtlsState, srtp: s.srtpCipher});
        });
        if (firstFrameMs === null && summary.frames > 0) firstFrameMs = performance.now() - started;
        summary.offerToFirstFrameMs = firstFrameMs;
        summary.offerToAnswerMs = answeredMs;
        summary.offerToConnectedMs = connectedMs;
        if (performance.now() - lastReport >= 500 || (firstFrameMs !== null && lastReport === 0)) {
          lastReport = performance.now();
          show(pc.connectionState + (summary.frames !== undefined ? ", " + summary.frames + " frames decoded, " +
               summary.width + "x" + summary.height : ""), pc.connectionState === "failed");
          report(summary);
        }
        setTimeout(poll, firstFrameMs === null ? 50 : 500);
      };
      poll();
    }
    main().catch((error) => { show(String(error), true); report({error: String(error)}); });
    </script></body></html>
    """
}

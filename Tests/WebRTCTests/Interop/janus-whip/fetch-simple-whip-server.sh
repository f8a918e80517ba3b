#!/usr/bin/env bash
# Unpacks Debian's simple-whip-server (Meetecho's WHIP server in front of Janus's VideoRoom) and the Node modules it
# requires into a private tree, without installing them: on this image `apt-get install simple-whip-server` is refused
# because its node-websocket needs Debian's libnode108, which conflicts with the NodeSource nodejs installed here.
# The modules are plain JavaScript (node-websocket's native helpers fall back to JavaScript), so they run on any
# Node >= 12 given NODE_PATH.
#
# Usage: fetch-simple-whip-server.sh DEST   (DEST/usr/share/simple-whip-server, DEST/usr/share/nodejs, ...)
set -euo pipefail
DEST="$1"
PACKAGES="simple-whip-server
libjs-async libjs-inherits libjs-is-typedarray libjs-typedarray-to-buffer libjs-util node-accepts node-array-flatten
node-async node-body-parser node-bytes node-colors node-content-disposition node-content-type node-cookie
node-cookie-signature node-cors node-debbundle-es-to-primitive node-debug node-deep-equal node-depd node-encodeurl
node-escape-html node-etag node-express node-finalhandler node-fresh node-function-bind node-http-errors
node-iconv-lite node-inherits node-ipaddr.js node-media-typer node-merge-descriptors node-methods node-mime
node-mime-types node-ms node-negotiator node-object-assign node-object-inspect node-on-finished node-parseurl
node-path-to-regexp node-proxy-addr node-qs node-range-parser node-raw-body node-safe-buffer node-send
node-serve-static node-setprototypeof node-statuses node-toidentifier node-type-is node-typedarray-to-buffer
node-unpipe node-utils-merge node-vary node-websocket"
if [ -f "$DEST/.complete" ]; then exit 0; fi
command -v node >/dev/null || { echo "node is missing: apt-get install nodejs (Tests/install-deps.sh)" >&2; exit 1; }
mkdir -p "$DEST/debs"
# shellcheck disable=SC2086
(cd "$DEST/debs" && apt-get download $PACKAGES >/dev/null) \
    || { echo "apt-get download of simple-whip-server and its Node modules failed (run apt-get update)" >&2; exit 1; }
for deb in "$DEST"/debs/*.deb; do dpkg-deb -x "$deb" "$DEST"; done
NODE_PATH="$DEST/usr/share/nodejs:$DEST/usr/lib/nodejs:$DEST/usr/lib/x86_64-linux-gnu/nodejs" node -e \
    "for (const m of ['express','cors','websocket','debug','colors/safe','async','body-parser']) require(m)" \
    || { echo "simple-whip-server's Node modules do not load" >&2; exit 1; }
rm -rf "$DEST/debs"
touch "$DEST/.complete"

"""A TLS-terminating TCP proxy for the WHIP interop scenarios: HTTPS on --listen:--port, plain TCP to --to HOST:PORT.

`rtc-h264 send --whip` sends a bearer token over http:// only to a loopback host; an endpoint without HTTPS of its own
(simple-whip-server) is reached through this, with a throwaway certificate the sender trusts through --ca-file.
Prints {"listening": PORT} once it accepts; runs until killed.
"""
import argparse
import asyncio
import json
import ssl


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--to", required=True, help="HOST:PORT of the plain HTTP server")
    parser.add_argument("--tls-cert", required=True)
    parser.add_argument("--tls-key", required=True)
    args = parser.parse_args()
    host, port = args.to.rsplit(":", 1)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(args.tls_cert, args.tls_key)

    async def handle(client_reader, client_writer):
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))

    server = await asyncio.start_server(handle, args.listen, args.port, ssl=context)
    print(json.dumps({"listening": args.port}), flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())

#!/usr/bin/env python3
# headingd — the latency baseline of scripts/bench-outputs: the least a process can do between a
# gpsd and a TCP client. It watches the gpsd at argv[1] (port), serves TCP on argv[2], and writes
# each $HEHDT line it reads, as $IIHDT, to every client at once, from one thread.
# SPDX-License-Identifier: Apache-2.0
import selectors
import socket
import sys

gpsd = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
gpsd.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
gpsd.send(b'?WATCH={"enable":true,"json":true,"nmea":true};\n')
server = socket.create_server(("127.0.0.1", int(sys.argv[2])))
selector = selectors.DefaultSelector()
selector.register(gpsd, selectors.EVENT_READ, "gpsd")
selector.register(server, selectors.EVENT_READ, "server")
clients, pending = [], b""
while True:
    for key, _ in selector.select():
        if key.data == "server":
            client, _ = server.accept()
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            clients.append(client)
            continue
        data = gpsd.recv(65536)
        if not data:
            sys.exit(0)
        pending += data
        while b"\n" in pending:
            line, _, pending = pending.partition(b"\n")
            if line.startswith(b"$HEHDT,"):
                out = b"$IIHDT," + line[7:] + b"\n"
                for client in clients:
                    client.send(out)
